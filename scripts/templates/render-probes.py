#!/usr/bin/python3
"""Renders the template compiler's probes (test/fixtures/templates/probes.json) with jinja2 in
transformers' environment (render-jinja2.py's), each on its contexts as given (no message
preprocessing): one outcome per context, {"text"}, {"error"}, {"syntax"} when jinja2 cannot parse
the template, or {"nondeterministic": true} when the output holds an object address.

    /usr/bin/python3 scripts/templates/render-probes.py PROBES_JSON OUT_JSON
"""
import importlib.util
import json
import re
import os
import sys
import warnings

warnings.filterwarnings("ignore")

spec = importlib.util.spec_from_file_location("render_jinja2", os.path.join(os.path.dirname(__file__), "render-jinja2.py"))
rj = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rj)


def main():
    probes_path, out_path = sys.argv[1:3]
    data = json.load(open(probes_path, encoding="utf-8"))
    contexts = data["contexts"]
    rows = []
    for probe in data["probes"]:
        results = []
        try:
            _, template = rj.compile_template(probe["template"])
        except Exception as err:  # noqa: BLE001
            rows.append({"id": probe["id"], "results": [{"syntax": f"{type(err).__name__}: {err}"} for _ in probe["contexts"]]})
            continue
        for i in probe["contexts"]:
            try:
                text = template.render(**contexts[i])
                results.append({"nondeterministic": True} if " at 0x" in text else {"text": text})
            except Exception as err:  # noqa: BLE001
                # Object addresses vary from run to run: the fixture keeps the message without them.
                results.append({"error": re.sub(r" at 0x[0-9a-f]+", "", f"{type(err).__name__}: {err}")})
        rows.append({"id": probe["id"], "results": results})
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(rows, f, ensure_ascii=False, indent=0)
        f.write("\n")


if __name__ == "__main__":
    main()
