#!/usr/bin/python3
"""Renders chat templates the way vLLM renders them (transformers' jinja2 environment), the oracle of
test/unit/template-jinja2-differential.test.ts.

    /usr/bin/python3 scripts/templates/render-jinja2.py TEMPLATE_DIR CASES_JSON OUT_DIR

TEMPLATE_DIR holds *.jinja files; CASES_JSON is a list of {"id", "request"} where "request" is the
raw JSON text of a chat request ({messages, tools?, add_generation_prompt?, chat_template_kwargs?});
for each template OUT_DIR/<name>.json gets {"template", "content_format", "specials", "results": [...]},
one result per case: {"id", "text"} or {"id", "error"}.

The environment is transformers' (src/transformers/utils/chat_template_utils.py,
`_compile_jinja_template` / `render_jinja_template`): ImmutableSandboxedEnvironment(trim_blocks=True,
lstrip_blocks=True, extensions=[loopcontrols]), its own `tojson` (json.dumps, ensure_ascii=False),
`raise_exception`, `strftime_now`, and `tools`/`documents` passed as None when absent, the special
tokens map and the request's chat_template_kwargs as further variables.

The messages are preprocessed as vLLM's vllm/entrypoints/chat_utils.py does it: the content format
is detected from the template's AST (`_detect_content_format`), `_parse_chat_message_content`
keeps only role, content, tool_calls (+ reasoning/reasoning_content), tool_call_id and name, text
parts are joined with "\\n" (string format) or wrapped as {"type": "text", "text"} (openai format),
and `_postprocess_messages` json.loads the tool-call arguments ("" or null become {}). Tools are
`ChatCompletionToolsParam.model_dump()`: {"type", "function": {"name", "description", "parameters",
...extra}} with None for an absent description or parameters.

Time is frozen (FROZEN_NOW) so `strftime_now` renders the same in the fixtures and in the test.
"""
import json
import os
import sys
from collections import deque
from datetime import datetime

import jinja2
import jinja2.ext
import jinja2.nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment

# 2026-03-05 (a Thursday) 14:07:09 UTC; the TS test freezes the same instant.
FROZEN_NOW = datetime(2026, 3, 5, 14, 7, 9)

SPECIALS = {
    "default": {"bos_token": "<s>", "eos_token": "</s>"},
    "llama3": {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
    "chatml": {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"},
    "deepseek": {"bos_token": "<｜begin▁of▁sentence｜>", "eos_token": "<｜end▁of▁sentence｜>"},
    "gemma": {"bos_token": "<bos>", "eos_token": "<eos>"},
}


def specials_for(name):
    if "llama3" in name or "llama-3" in name or "llama4" in name or "toolace" in name or "xlam_llama" in name:
        return SPECIALS["llama3"]
    if "kimi" in name.lower():
        return {"bos_token": "[BOS]", "eos_token": "[EOS]"}
    if "glm" in name.lower():
        return {"eos_token": "<|endoftext|>"}
    name = name.lower()
    if "llama-3" in name or "hermes-3" in name:
        return SPECIALS["llama3"]
    if "qwen" in name or "chatml" in name or "hermes" in name or "internlm" in name or "minimax" in name or "smollm" in name:
        return SPECIALS["chatml"]
    if "deepseek" in name:
        return SPECIALS["deepseek"]
    if "gemma" in name:
        return SPECIALS["gemma"]
    return SPECIALS["default"]


# --- transformers' environment -------------------------------------------------------------------


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def strftime_now(format):
    return FROZEN_NOW.strftime(format)


def compile_template(source):
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env, env.from_string(source)


# --- vLLM's content-format detection (chat_utils.py) -------------------------------------------


def _is_var_access(node, varname):
    return isinstance(node, jinja2.nodes.Name) and node.ctx == "load" and node.name == varname


def _is_attr_access(node, varname, key):
    if isinstance(node, jinja2.nodes.Getitem):
        return _is_var_access(node.node, varname) and isinstance(node.arg, jinja2.nodes.Const) and node.arg.value == key
    if isinstance(node, jinja2.nodes.Getattr):
        return _is_var_access(node.node, varname) and node.attr == key
    return False


def _is_var_or_elems_access(node, varname, key=None):
    if isinstance(node, jinja2.nodes.Filter):
        return node.node is not None and _is_var_or_elems_access(node.node, varname, key)
    if isinstance(node, jinja2.nodes.Test):
        return _is_var_or_elems_access(node.node, varname, key)
    if isinstance(node, jinja2.nodes.Getitem) and isinstance(node.arg, jinja2.nodes.Slice):
        return _is_var_or_elems_access(node.node, varname, key)
    return _is_attr_access(node, varname, key) if key else _is_var_access(node, varname)


def _assigned_from(root, varname):
    yield varname
    related = deque([varname])
    while related:
        name = related.popleft()
        for assign in root.find_all(jinja2.nodes.Assign):
            if _is_var_or_elems_access(assign.node, name):
                assert isinstance(assign.target, jinja2.nodes.Name)
                yield assign.target.name
                if assign.target.name != name:
                    related.append(assign.target.name)


def _message_vars(root):
    names = list(_assigned_from(root, "messages"))
    for loop in root.find_all(jinja2.nodes.For):
        for name in names:
            if _is_var_or_elems_access(loop.iter, name):
                assert isinstance(loop.target, jinja2.nodes.Name)
                yield loop.target.name
                break


def _content_loops(root):
    message_vars = list(_message_vars(root))
    for loop in root.find_all(jinja2.nodes.For):
        for name in message_vars:
            if _is_var_or_elems_access(loop.iter, name, "content"):
                assert isinstance(loop.target, jinja2.nodes.Name)
                yield loop
                break


def detect_content_format(env, source):
    try:
        ast = env.parse(source)
    except Exception:
        return "string"
    try:
        next(_content_loops(ast))
    except StopIteration:
        return "string"
    except Exception:
        return "string"
    return "openai"


# --- vLLM's message preprocessing ----------------------------------------------------------------

TEXT_TYPES = ("text", "input_text", "output_text", "refusal", "thinking")


def parse_message(message, content_format):
    role = message["role"]
    content = message.get("content")
    reasoning = message.get("reasoning") or message.get("reasoning_content")
    if content is None:
        content = []
    elif isinstance(content, str):
        content = [{"type": "text", "text": content}]
    parts = []
    for part in content:
        if isinstance(part, str):
            parts.append(part)
            continue
        kind = part.get("type")
        text = part.get("text") if kind in ("text", "input_text", "output_text") else part.get(kind)
        if kind in ("text", "refusal") and text is None:
            continue
        if kind not in TEXT_TYPES:
            raise ValueError(f"media part {kind!r}")
        parts.append({"type": "text", "text": text} if content_format == "openai" else text)
    out = {"role": role, "content": parts if content_format == "openai" else "\n".join(parts)}
    if role == "assistant":
        if message.get("tool_calls") is not None:
            out["tool_calls"] = list(message["tool_calls"])
        if reasoning is not None:
            out["reasoning"] = reasoning
            out["reasoning_content"] = reasoning
    elif role == "tool":
        if "tool_call_id" in message:
            out["tool_call_id"] = message["tool_call_id"]
    if isinstance(message.get("name"), str):
        out["name"] = message["name"]
    return out


def postprocess(messages):
    for message in messages:
        if message["role"] == "assistant" and isinstance(message.get("tool_calls"), list):
            for item in message["tool_calls"]:
                args = item["function"].get("arguments")
                if args:
                    if not isinstance(args, (dict, list)):
                        item["function"]["arguments"] = json.loads(args)
                else:
                    item["function"]["arguments"] = {}


def tool_dump(tool):
    fn = tool["function"]
    out = {"name": fn["name"], "description": fn.get("description"), "parameters": fn.get("parameters")}
    for k, v in fn.items():
        if k not in out:
            out[k] = v
    dumped = {"type": "function", "function": out}
    for k, v in tool.items():
        if k not in dumped:
            dumped[k] = v
    return dumped


def render(template, content_format, specials, request):
    messages = [parse_message(m, content_format) for m in request["messages"]]
    postprocess(messages)
    tools = request.get("tools")
    tools = [tool_dump(t) for t in tools] if tools else None
    kwargs = dict(specials)
    kwargs.update(request.get("chat_template_kwargs") or {})
    return template.render(
        messages=messages,
        tools=tools,
        documents=None,
        add_generation_prompt=request.get("add_generation_prompt", True),
        **kwargs,
    )


def main():
    template_dir, cases_path, out_dir = sys.argv[1:4]
    cases = json.load(open(cases_path, encoding="utf-8"))
    os.makedirs(out_dir, exist_ok=True)
    for file in sorted(os.listdir(template_dir)):
        if not file.endswith(".jinja"):
            continue
        name = file[: -len(".jinja")]
        # newline="" keeps CRLF as stored: jinja2 itself normalizes line endings.
        source = open(os.path.join(template_dir, file), encoding="utf-8", newline="").read()
        env, template = compile_template(source)
        content_format = detect_content_format(env, source)
        specials = specials_for(name)
        results = []
        for case in cases:
            request = json.loads(case["request"])
            try:
                results.append({"id": case["id"], "text": render(template, content_format, specials, request)})
            except Exception as err:  # noqa: BLE001 - every failure is a recorded outcome
                results.append({"id": case["id"], "error": f"{type(err).__name__}: {err}"})
        with open(os.path.join(out_dir, name + ".json"), "w", encoding="utf-8") as f:
            json.dump(
                {"template": file, "content_format": content_format, "specials": specials, "results": results},
                f,
                ensure_ascii=False,
                indent=0,
            )
            f.write("\n")


if __name__ == "__main__":
    main()
