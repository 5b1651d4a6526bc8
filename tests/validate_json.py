#!/usr/bin/env python3
"""Validates a JSON file against a JSON Schema (Debian's python3-jsonschema)."""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
jsonschema.validators.validator_for(schema).check_schema(schema)
jsonschema.validate(doc, schema)
print(f"ok: {sys.argv[2]} is valid against {sys.argv[1]}")
