"""The web's tests: pages, headers, input, tokens, the server, a browser."""
