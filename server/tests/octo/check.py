#!/usr/bin/env python3
"""Validate a recorded OCTO JSON body against the OCTO OpenAPI document.

    python3 octo_check.py --operation Bookings_BookingReservation --status 200 --body answer.json
    python3 octo_check.py --operation "POST /bookings" --schema-for-request --body req.json
    python3 octo_check.py --list

Exit codes: 0 = valid, 1 = invalid (every error printed as  <json path>: <message>),
2 = usage problem (unknown operation, undeclared status, unreadable file ...).

Tested with jsonschema==4.26.0 (+ rfc3339-validator, rfc3986-validator from the
"format-nongpl" extra) and PyYAML==6.0.4; see requirements.txt beside this file.

Semantics (see --help for switches):
  * $refs are resolved against the whole document (the converted document is the
    root resource; the target schema is wrapped as {"allOf": [target]}).
  * OpenAPI 3.0 `nullable: true` -> null is added: `type: T` becomes [T, "null"]
    (enum gets null too); for schemas without `type` or with allOf/anyOf/oneOf/$ref
    the schema becomes anyOf[{type: null}, schema].  This is the intent of the OCTO
    document (its examples use `cancellation: null`, `voucher: null` on
    `{type: object, allOf: [$ref], nullable: true}`).  --strict-nullable applies the
    literal OAS 3.0.3 rule instead (null only added to an explicit `type`; other
    constraints such as allOf still apply, so such fields then reject null).
  * OpenAPI 3.1 documents are validated as JSON Schema 2020-12 unchanged.
  * `format` is checked (date-time, email, uri, uuid, plus OpenAPI int32/int64)
    unless --no-formats.
  * The OCTO document declares all errors under status "400" as anyOf over
    Error* schemas whose `error` is a free string.  Literal anyOf validation would
    accept e.g. {"error":"INVALID_PRODUCT_ID","errorMessage":"x"} without productId
    (it matches ErrorBadRequest).  So by default the branch is picked by the body's
    `error` value (INVALID_PRODUCT_ID -> ErrorInvalidProductID, derived from the
    schema name) and a code not declared for the operation is reported.  Use
    --error-code to force a code, or --no-narrow for the literal anyOf.
  * The document declares only 200 and 400 (Capabilities_get: only 200).  Any other
    status exits 2 ("not declared"); --error-status-fallback validates an undeclared
    4xx/5xx (401/403/404/500 ...) against the operation's 400 schema instead.
  * --capabilities octo/content,octo/pricing makes the properties the document
    marks `x-capability-data: {capability: X, required: true}` required (the
    document itself never lists them in `required`).
  * The document sets no additionalProperties anywhere, so unknown properties are
    allowed; --warn-unknown lists properties not declared by any schema at that
    place (informational, does not change the exit code).
"""
import argparse
import functools
import tempfile
import copy
import json
import re
import sys
from pathlib import Path

try:
    import yaml
    import jsonschema
    from jsonschema import Draft4Validator, Draft202012Validator, FormatChecker
except ImportError as e:  # pragma: no cover
    sys.exit(f"missing dependency ({e}); .ci/install-tools stripe installs jsonschema and PyYAML in the API tests' venv")

DEFAULT_SPEC = str(Path(__file__).with_name("openapi.yaml"))
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


# --------------------------------------------------------------------------- loading
class _Loader(yaml.SafeLoader):
    """SafeLoader that keeps YAML 1.1 timestamps as strings (JSON has no dates)."""


_Loader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


@functools.lru_cache(maxsize=None)
def load_spec(path):
    with open(path, encoding="utf-8") as f:
        return yaml.load(f, Loader=_Loader)


# --------------------------------------------------------------------------- conversion
SKIP_KEYS = {"example", "examples", "discriminator", "xml", "externalDocs"}


def convert(node, *, v31, strict_nullable, caps):
    """OpenAPI schema object (recursively) -> JSON Schema."""
    if isinstance(node, list):
        return [convert(x, v31=v31, strict_nullable=strict_nullable, caps=caps) for x in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for k, v in node.items():
        if k in SKIP_KEYS:
            continue
        if k == "properties" and isinstance(v, dict):
            out[k] = {pk: convert(pv, v31=v31, strict_nullable=strict_nullable, caps=caps)
                      for pk, pv in v.items()}
        elif k in ("description", "title", "enum", "required", "x-capability-data",
                   "x-supported-capabilities", "default", "const"):
            out[k] = copy.deepcopy(v)
        else:
            out[k] = convert(v, v31=v31, strict_nullable=strict_nullable, caps=caps)
    # capability-required properties
    if caps and isinstance(out.get("properties"), dict):
        req = list(out.get("required", []))
        for pk, pv in out["properties"].items():
            xc = pv.get("x-capability-data") if isinstance(pv, dict) else None
            if xc and xc.get("required") and xc.get("capability") in caps and pk not in req:
                req.append(pk)
        if req:
            out["required"] = req
    if v31 or not out.pop("nullable", False):
        return out
    # OpenAPI 3.0 nullable
    has_type = "type" in out
    composed = any(k in out for k in ("allOf", "anyOf", "oneOf", "$ref", "not"))
    if strict_nullable:
        if has_type:
            out["type"] = [out["type"], "null"]
            if "enum" in out and None not in out["enum"]:
                out["enum"] = out["enum"] + [None]
        return out
    if has_type and not composed:
        out["type"] = [out["type"], "null"]
        if "enum" in out and None not in out["enum"]:
            out["enum"] = out["enum"] + [None]
        return out
    return {"anyOf": [{"type": "null"}, out], "x-nullable-wrapper": True}


# --------------------------------------------------------------------------- operations
def operations(spec):
    ops = {}
    for path, item in (spec.get("paths") or {}).items():
        for m, op in item.items():
            if m not in METHODS or not isinstance(op, dict):
                continue
            oid = op.get("operationId") or f"{m.upper()} {path}"
            ops[oid] = (path, m, op)
    return ops


def _norm_path(p):
    return "/" + p.strip().strip("/")


def find_operation(spec, name):
    ops = operations(spec)
    if name in ops:
        return name, ops[name]
    low = {k.lower(): k for k in ops}
    if name.lower() in low:
        k = low[name.lower()]
        return k, ops[k]
    m = re.match(r"^\s*([A-Za-z]+)\s+(\S+)\s*$", name)
    if m:
        meth, p = m.group(1).lower(), _norm_path(m.group(2))
        for k, (path, mm, _op) in ops.items():
            if mm == meth and _norm_path(path) == p:
                return k, ops[k]
    return None, None


def deref(spec, node):
    seen = 0
    while isinstance(node, dict) and "$ref" in node and seen < 50:
        ref = node["$ref"]
        if not ref.startswith("#/"):
            raise ValueError(f"external $ref not supported: {ref}")
        cur = spec
        for part in ref[2:].split("/"):
            cur = cur[part.replace("~1", "/").replace("~0", "~")]
        node, seen = cur, seen + 1
    return node


def json_media(content):
    if not content:
        return None
    for ct in ("application/json", "application/problem+json"):
        if ct in content:
            return content[ct]
    for ct, v in content.items():
        if "json" in ct:
            return v
    return None


def error_code_for_schema(name):
    """ErrorInvalidProductID -> INVALID_PRODUCT_ID (naming convention of the OCTO doc)."""
    base = name[5:] if name.startswith("Error") else name
    words = re.findall(r"[A-Z]+(?![a-z])|[A-Z][a-z0-9]*", base)
    return "_".join(w.upper() for w in words)


def error_branches(schema):
    """If schema is anyOf/oneOf over $refs to Error* schemas: {CODE: ref}."""
    for key in ("anyOf", "oneOf"):
        if isinstance(schema, dict) and key in schema:
            refs = [b.get("$ref") for b in schema[key] if isinstance(b, dict)]
            if refs and all(refs):
                names = [r.rsplit("/", 1)[-1] for r in refs]
                if all(n.startswith("Error") for n in names):
                    return {error_code_for_schema(n): r for n, r in zip(names, refs)}
    return {}


# --------------------------------------------------------------------------- errors
def fmt_path(path):
    s = "$"
    for p in path:
        if isinstance(p, int):
            s += f"[{p}]"
        elif re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", str(p)):
            s += f".{p}"
        else:
            s += f"[{json.dumps(p)}]"
    return s


def short(v, n=80):
    s = json.dumps(v, ensure_ascii=False)
    return s if len(s) <= n else s[: n - 3] + "..."


def message(err):
    val = err.validator_value
    if err.validator == "type":
        return f"{short(err.instance)} is not of type {json.dumps(val)}"
    if err.validator == "enum":
        return f"{short(err.instance)} is not one of {json.dumps(val)}"
    if err.validator == "format":
        return f"{short(err.instance)} is not a valid '{val}'"
    if err.validator == "minItems":
        return f"array has {len(err.instance)} item(s), minItems is {val}"
    return err.message


def flatten(err, indent=""):
    """Yield (path, text) lines; nullable wrappers are unwrapped, anyOf branches shown."""
    if err.validator == "anyOf" and err.schema.get("x-nullable-wrapper") and err.context:
        subs = [e for e in err.context if e.relative_schema_path and e.relative_schema_path[0] == 1]
        for e in sorted(subs, key=lambda e: list(map(str, e.absolute_path))):
            yield from flatten(e, indent)
        return
    if err.validator in ("anyOf", "oneOf") and err.context:
        yield fmt_path(err.absolute_path), indent + f"{short(err.instance, 60)} is not valid under any of the given schemas ({err.validator}):"
        by_branch = {}
        for e in err.context:
            by_branch.setdefault(e.relative_schema_path[0], []).append(e)
        branches = err.schema.get(err.validator, [])
        for i in sorted(by_branch):
            b = branches[i] if i < len(branches) else {}
            label = b.get("$ref", "").rsplit("/", 1)[-1] or b.get("type") or f"#{i}"
            yield fmt_path(err.absolute_path), indent + f"  branch {i} ({label}):"
            for e in by_branch[i]:
                yield from flatten(e, indent + "    ")
        return
    yield fmt_path(err.absolute_path), indent + message(err)


# --------------------------------------------------------------------------- unknown props
def unknown_props(validator, schema, inst, path, out, depth=0):
    """Best effort: report object keys not declared by any properties at that spot."""
    if depth > 60:
        return
    schema = resolve_all(validator, schema)
    if isinstance(inst, dict):
        declared, subs = set(), {}
        for s in schema:
            for k, v in (s.get("properties") or {}).items():
                declared.add(k)
                subs.setdefault(k, []).append(v)
        if declared:
            for k in inst:
                if k not in declared:
                    out.append((fmt_path(path + [k]), "property not declared by the schema (allowed: no additionalProperties in the document)"))
        for k, v in inst.items():
            if k in subs:
                for s in subs[k]:
                    unknown_props(validator, s, v, path + [k], out, depth + 1)
    elif isinstance(inst, list):
        for s in schema:
            it = s.get("items")
            if isinstance(it, dict):
                for i, v in enumerate(inst):
                    unknown_props(validator, it, v, path + [i], out, depth + 1)


def resolve_all(validator, schema, depth=0):
    """Flatten $ref/allOf/anyOf/oneOf into a list of concrete schema dicts."""
    if not isinstance(schema, dict) or depth > 30:
        return []
    res = [schema]
    if "$ref" in schema:
        target = validator._resolver.lookup(schema["$ref"]).contents
        res += resolve_all(validator, target, depth + 1)
    for k in ("allOf", "anyOf", "oneOf"):
        for b in schema.get(k, []):
            res += resolve_all(validator, b, depth + 1)
    return res


# --------------------------------------------------------------------------- main
def build_format_checker():
    fc = FormatChecker()

    @fc.checks("int32")
    def _int32(v):
        return not isinstance(v, int) or isinstance(v, bool) or -2**31 <= v < 2**31

    @fc.checks("int64")
    def _int64(v):
        return not isinstance(v, int) or isinstance(v, bool) or -2**63 <= v < 2**63

    return fc


def do_list(spec):
    ops = operations(spec)
    print(f"# OpenAPI {spec.get('openapi')}  ({len(ops)} operations)")
    for oid, (path, m, op) in ops.items():
        statuses = []
        for st, resp in (op.get("responses") or {}).items():
            resp = deref(spec, resp)
            media = json_media(resp.get("content"))
            sch = media.get("schema") if media else None
            desc = "no body"
            if sch is not None:
                if "$ref" in sch:
                    desc = sch["$ref"].rsplit("/", 1)[-1]
                elif sch.get("type") == "array" and "$ref" in sch.get("items", {}):
                    desc = "[" + sch["items"]["$ref"].rsplit("/", 1)[-1] + "]"
                elif error_branches(sch):
                    desc = "anyOf " + ",".join(error_branches(sch))
                else:
                    desc = "inline"
            statuses.append(f"{st}={desc}")
        rb = op.get("requestBody")
        req = ""
        if rb:
            rb = deref(spec, rb)
            media = json_media(rb.get("content"))
            if media and "$ref" in media.get("schema", {}):
                req = "  request=" + media["schema"]["$ref"].rsplit("/", 1)[-1] + (" (required)" if rb.get("required") else "")
        print(f"{oid:38} {m.upper():6} {path:26} {'; '.join(statuses)}{req}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--spec", default=DEFAULT_SPEC, help="OpenAPI document (default: %(default)s)")
    ap.add_argument("--list", action="store_true", help="list operationId, method, path, statuses")
    ap.add_argument("--operation", help="operationId (case-insensitive) or 'METHOD /path'")
    ap.add_argument("--status", help="response status as declared (e.g. 200, 400, default)")
    ap.add_argument("--body", help="JSON file to validate ('-' = stdin)")
    ap.add_argument("--schema-for-request", action="store_true", help="validate against the requestBody schema instead of a response")
    ap.add_argument("--capabilities", default="", help="comma list, e.g. octo/content,octo/pricing: make their x-capability-data required props required")
    ap.add_argument("--error-code", help="force the error branch (e.g. INVALID_PRODUCT_ID) for anyOf-of-Error* responses")
    ap.add_argument("--no-narrow", action="store_true", help="validate error responses against the literal anyOf (no branch picking)")
    ap.add_argument("--error-status-fallback", action="store_true", help="validate an undeclared 4xx/5xx status (e.g. 401, 403, 404, 500) against the declared 400 schema (the OCTO doc puts every error under 400)")
    ap.add_argument("--strict-nullable", action="store_true", help="literal OAS 3.0.3 nullable (see module doc)")
    ap.add_argument("--no-formats", action="store_true", help="do not check `format`")
    ap.add_argument("--warn-unknown", action="store_true", help="also list undeclared properties (informational)")
    ap.add_argument("--print-schema", action="store_true", help="print the converted JSON Schema used (refs left as #/components/...) and exit")
    a = ap.parse_args(argv)

    try:
        spec = load_spec(a.spec)
    except Exception as e:
        print(f"cannot read spec {a.spec}: {e}", file=sys.stderr)
        return 2
    if a.list:
        do_list(spec)
        return 0
    if not a.operation or (not a.schema_for_request and not a.status) or (not a.body and not a.print_schema):
        ap.error("--operation, --status (or --schema-for-request) and --body are required (or --list)")

    oid, found = find_operation(spec, a.operation)
    if not found:
        print(f"unknown operation {a.operation!r}; try --list", file=sys.stderr)
        return 2
    path, method, op = found

    if a.schema_for_request:
        rb = op.get("requestBody")
        if not rb:
            print(f"{oid} declares no requestBody", file=sys.stderr)
            return 2
        media = json_media(deref(spec, rb).get("content"))
        where = f"{oid} request body"
    else:
        responses = op.get("responses") or {}
        st = str(a.status)
        resp = responses.get(st) or responses.get(st[0] + "XX") or responses.get("default")
        if resp is None and a.error_status_fallback and st[:1] in ("4", "5") and "400" in responses:
            print(f"note: {oid} declares no {st}; validating against its 400 schema (--error-status-fallback)")
            resp, st = responses["400"], "400"
        if resp is None:
            print(f"{oid} declares no response for status {st}; declared: {', '.join(responses)}", file=sys.stderr)
            return 2
        media = json_media(deref(spec, resp).get("content"))
        where = f"{oid} {st} response"
    if not media or "schema" not in media:
        print(f"{where}: no JSON schema declared", file=sys.stderr)
        return 2
    target = media["schema"]

    body = None
    if a.body:
        try:
            raw = sys.stdin.read() if a.body == "-" else Path(a.body).read_text(encoding="utf-8")
            body = json.loads(raw)
        except Exception as e:
            print(f"cannot read JSON body {a.body}: {e}", file=sys.stderr)
            return 2

    errors = []
    # error-code narrowing
    branches = error_branches(target)
    if branches and not a.no_narrow:
        code = a.error_code or (body.get("error") if isinstance(body, dict) else None)
        if isinstance(code, str) and code in branches:
            target = {"$ref": branches[code]}
            where += f" [{code} -> {branches[code].rsplit('/', 1)[-1]}]"
        elif a.error_code:
            print(f"--error-code {a.error_code} not declared for {oid}; declared: {', '.join(branches)}", file=sys.stderr)
            return 2
        elif isinstance(code, str):
            errors.append(("$.error", f"{short(code)} is not one of the error codes {oid} declares for this status: {', '.join(branches)} (document itself only requires a string; --no-narrow to accept)"))

    v31 = str(spec.get("openapi", "3.0")).startswith("3.1")
    caps = {c.strip() for c in a.capabilities.split(",") if c.strip()}
    root = {"components": convert(spec.get("components", {}), v31=v31, strict_nullable=a.strict_nullable, caps=caps),
            "allOf": [convert(target, v31=v31, strict_nullable=a.strict_nullable, caps=caps)]}
    if a.print_schema:
        print(json.dumps(root["allOf"][0], indent=2))
        return 0
    cls = Draft202012Validator if v31 else Draft4Validator
    v = cls(root, format_checker=None if a.no_formats else build_format_checker())

    for err in sorted(v.iter_errors(body), key=lambda e: (list(map(str, e.absolute_path)), str(e.message))):
        errors.extend(flatten(err))

    warnings = []
    if a.warn_unknown:
        unknown_props(v, root["allOf"][0], body, [], warnings)

    label = f"{where} ({'OpenAPI ' + str(spec.get('openapi'))}, jsonschema {jsonschema_version()}{', caps=' + ','.join(sorted(caps)) if caps else ''})"
    for p, m in warnings:
        print(f"WARN {p}: {m}")
    if errors:
        print(f"INVALID against {label}: {sum(1 for _p, m in errors if not m.startswith(' '))} error(s)")
        for p, m in errors:
            print(f"  {p}: {m}")
        return 1
    print(f"OK: valid against {label}")
    return 0


def jsonschema_version():
    try:
        from importlib.metadata import version
        return version("jsonschema")
    except Exception:  # pragma: no cover
        return getattr(jsonschema, "__version__", "?")


def batch(path):
    """Validates every answer of a JSON array of {operation, status, capabilities, body};
    prints each invalid one and exits 1 when any is."""
    failed = 0
    for i, item in enumerate(json.loads(Path(path).read_text(encoding="utf-8"))):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(item["body"], f)
        argv = ["--operation", item["operation"], "--status", str(item["status"]), "--body", f.name,
                "--capabilities", ",".join(item.get("capabilities", []))]
        print(f"[{i}] {item['operation']} {item['status']} {','.join(item.get('capabilities', []))}")
        code = main(argv)
        Path(f.name).unlink()
        if code != 0:
            failed += 1
            print(json.dumps(item["body"])[:2000])
    print(f"{failed} invalid of {i + 1 if 'i' in dir() else 0}")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--batch":
        sys.exit(batch(sys.argv[2]))
    sys.exit(main())
