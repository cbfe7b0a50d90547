"""The annotation workspace's REST API: every action the workspace page performs is one endpoint
here, documented in the OpenAPI schema (/api/schema/). Views are thin: they find the object
through the one access path (annotation.selectors), validate with an input serializer, call one
service and answer with the output representation from ``payloads``."""
