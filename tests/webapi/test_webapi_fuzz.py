"""Property-based fuzzing of the JSON API from its OpenAPI document (schemathesis).

Schemathesis generates valid and invalid requests for every operation of
webapi/openapi.yaml and checks that no answer is a server error and that every answer
matches the document (status codes, content types, response schemas), and that
requests the document forbids are refused. Examples are bounded and derandomized so
the run is fast and repeatable.

With MANCALA_FUZZ_URL=http://127.0.0.1:PORT the same run goes over HTTP to a running
server (gunicorn, as the image runs it), which also checks that every answer arrives:
a broken connection fails the run.

One check is left out: "a schema-valid request is accepted". The document cannot say
everything the rules check (a board's total, options that belong to the other variant,
a legal move), so a schema-valid request may rightly get a 400 or 422 saying why.
"""

import os

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from webapi import create_app

if url := os.environ.get("MANCALA_FUZZ_URL"):
    schema = schemathesis.openapi.from_url(f"{url.rstrip('/')}/api/openapi.yaml")
else:
    app = create_app({"PLAYER_SEED": 0, "ANALYSIS_SECONDS": 0.2})  # a short /api/analyse
    schema = schemathesis.openapi.from_wsgi("/api/openapi.yaml", app)


@schema.parametrize()
@settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_api_conforms_to_its_openapi_document(case):
    case.call_and_validate(excluded_checks=[positive_data_acceptance])
