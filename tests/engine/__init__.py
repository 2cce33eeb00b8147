"""The engine's tests: cards, hands, the golden matches, playouts, the compiled engine."""
