#!/usr/bin/python3
"""Seeded, realistic chat requests for the jinja2 differential (scripts/templates/render-jinja2.py).

    /usr/bin/python3 scripts/templates/gen-cases.py COUNT SEED > cases.json

Each case is the raw JSON text of an OpenAI chat request, as a client sends it: alternating user and
assistant turns, assistant tool calls (arguments as a JSON string with floats such as 1.0 and 1e-07,
big integers, integer-like keys; sometimes as an object or "", which vLLM accepts) and tool results,
reasoning_content, text-part lists, unicode (astral characters, U+0085, U+FEFF, U+001F), CRLF,
whitespace-padded text, nested tool schemas (floats, enums, missing descriptions or parameters),
add_generation_prompt on and off, enable_thinking on, off or absent. Media parts are left out: a
text-only gateway refuses them.
"""
import json
import random
import sys

WORDS = [
    "hi", "Hello, world!", "São Paulo", "東京", 'naïve "quote"', "it's", "back\\slash", "line\nbreak",
    "  padded  ", "\n\nleading newlines", "trailing newline\n", "😀 emoji", "𝔘nicode 𝒜stral", "tab\there",
    '{"json": true}', "<b>html</b>", "crlf\r\nline", "nel\x85end", "\ufeffbom", "unit\x1fsep", "ß straße",
    "ǅemal title", "what is 2+2?", "Please summarize the following text.", "Ünïcödé", "%s and %d", "{{ not jinja }}",
]


def text(r, max_words=5):
    n = r.randint(1, max_words)
    return r.choice([" ", "", "\n"]).join(r.choice(WORDS) for _ in range(n))


def json_value(r, depth=0):
    k = r.randrange(9 if depth < 2 else 6)
    if k == 0:
        return text(r, 2)
    if k == 1:
        return r.randint(-5, 100)
    if k == 2:
        return r.choice([1.0, 0.5, 1e-07, 2.5e16, 3.14159, -0.0, 100.0, 12.75])
    if k == 3:
        return r.choice([True, False, None])
    if k == 4:
        return r.choice([12345678901234567890, 2**53 + 1, 7])
    if k == 5:
        return r.choice(["", "x", "多语言"])
    if k == 6:
        return [json_value(r, depth + 1) for _ in range(r.randint(0, 3))]
    keys = ["city", "unit", "b", "2", "10", "a", "query", "ñame", "limit", "options"]
    return {r.choice(keys): json_value(r, depth + 1) for _ in range(r.randint(0, 3))}


def arguments(r):
    args = {r.choice(["city", "b", "2", "query", "z", "y", "count", "opts"]): json_value(r, 1) for _ in range(r.randint(0, 4))}
    form = r.random()
    if form < 0.08:
        return args  # an object: vLLM passes it through
    if form < 0.14:
        return ""  # vLLM: {}
    if form < 0.5:
        return json.dumps(args, ensure_ascii=False, separators=(",", ":"))
    return json.dumps(args, ensure_ascii=r.random() < 0.3)


TOOL_NAMES = ["get_weather", "search", "calculator", "send_email", "lookup"]


def schema(r, depth=0):
    props = {}
    for name in r.sample(["city", "unit", "days", "query", "limit", "ratio", "filters", "tags"], r.randint(0, 4)):
        p = {"type": r.choice(["string", "integer", "number", "boolean", "object", "array"])}
        if r.random() < 0.7:
            p["description"] = text(r, 3)
        if p["type"] == "number":
            p["minimum"] = r.choice([0.0, 0.5, 1e-07])
            p["maximum"] = r.choice([1.0, 100.0, 2.5])
        if p["type"] == "integer" and r.random() < 0.5:
            p["default"] = r.choice([1, 10])
        if p["type"] == "string" and r.random() < 0.4:
            p["enum"] = ["celsius", "fahrenheit"]
        if p["type"] == "object" and depth < 1 and r.random() < 0.6:
            p.update(schema(r, depth + 1))
        if p["type"] == "array":
            p["items"] = {"type": "string"}
        props[name] = p
    out = {"type": "object", "properties": props}
    if props and r.random() < 0.7:
        out["required"] = list(props)[: r.randint(1, len(props))]
    return out


def tool(r, name):
    fn = {"name": name}
    if r.random() < 0.85:
        fn["description"] = text(r, 4)
    if r.random() < 0.9:
        fn["parameters"] = schema(r)
    if r.random() < 0.1:
        fn["strict"] = r.random() < 0.5
    return {"type": "function", "function": fn}


def content(r, role):
    roll = r.random()
    if roll < 0.15:
        return [{"type": "text", "text": text(r)} for _ in range(r.randint(1, 3))]
    if roll < 0.2 and role == "user":
        return ""
    return text(r)


def conversation(r, tools):
    messages = []
    if r.random() < 0.5:
        messages.append({"role": "system", "content": content(r, "system")})
    turns = r.randint(1, 3)
    call_id = 0
    for turn in range(turns):
        messages.append({"role": "user", "content": content(r, "user")})
        last = turn == turns - 1
        if last and r.random() < 0.7:
            break
        if tools and r.random() < 0.5:
            calls = []
            for _ in range(r.randint(1, 2)):
                call_id += 1
                calls.append({
                    "id": "".join(r.choice("abcdefghijkABCDEFGHIJK0123456789") for _ in range(9)),
                    "type": "function",
                    "function": {"name": r.choice(tools)["function"]["name"], "arguments": arguments(r)},
                })
            msg = {"role": "assistant", "content": r.choice([None, "", text(r, 2)]), "tool_calls": calls}
            if r.random() < 0.05:
                msg["content"] = []
            if r.random() < 0.3:
                msg["reasoning_content"] = r.choice(["\n  " + text(r, 2) + "  \n", text(r, 3)])
            messages.append(msg)
            for call in calls:
                result = r.choice([text(r, 2), json.dumps({"temp": r.choice([21.5, 20.0, 7]), "ok": True}), ""])
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
            if last and r.random() < 0.5:
                break
        msg = {"role": "assistant", "content": content(r, "assistant")}
        if r.random() < 0.25:
            msg["reasoning_content"] = r.choice(["\n  " + text(r, 2) + "  \n", text(r, 3)])
        if r.random() < 0.2:
            msg["content"] = f"<think>\n{text(r, 2)}\n</think>\n\n{text(r, 2)}"
        messages.append(msg)
        if last:
            messages.append({"role": "user", "content": content(r, "user")})
    return messages


def case(r):
    tools = [tool(r, n) for n in r.sample(TOOL_NAMES, r.randint(1, 3))] if r.random() < 0.5 else []
    req = {"messages": conversation(r, tools)}
    if tools:
        req["tools"] = tools
    if r.random() < 0.3:
        req["add_generation_prompt"] = r.random() < 0.5
    roll = r.random()
    if roll < 0.3:
        req["chat_template_kwargs"] = {"enable_thinking": r.random() < 0.5}
    return req


def main():
    count, seed = int(sys.argv[1]), int(sys.argv[2])
    r = random.Random(seed)
    cases = []
    for i in range(count):
        req = case(r)
        cases.append({"id": i, "request": json.dumps(req, ensure_ascii=r.random() < 0.2)})
    json.dump(cases, sys.stdout, ensure_ascii=False, indent=0)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
