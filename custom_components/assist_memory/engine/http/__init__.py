"""The REST API both ways: routes, OpenAPI, the wire format, and the remote client."""
