"""When a web page needs a browser to show its text (the rules; the browser is an
adapter)."""
