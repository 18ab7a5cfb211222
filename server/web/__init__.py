"""The Starlette app `confcal serve` runs: routes, middleware and the JSON APIs."""
