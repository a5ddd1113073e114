import json, sys
d = json.load(open(sys.argv[1]))
assert d["$schema"] == "https://www.speedscope.app/file-format-schema.json"
frames = d["shared"]["frames"]
for f in frames:
    assert isinstance(f["name"], str)
    assert isinstance(f.get("file", ""), str) and isinstance(f.get("line", 0), int)
assert d["profiles"]
units = {"none", "nanoseconds", "microseconds", "milliseconds", "seconds", "bytes"}
for p in d["profiles"]:
    assert p["unit"] in units and isinstance(p["name"], str)
    if p["type"] == "sampled":
        assert len(p["samples"]) == len(p["weights"])
        assert all(w >= 0 for w in p["weights"])
        assert all(0 <= i < len(frames) for s in p["samples"] for i in s)
        assert abs(p["endValue"] - p["startValue"] - sum(p["weights"])) <= 1e-9 * max(1, sum(p["weights"]))
    else:
        assert p["type"] == "evented"
        stack, last = [], p["startValue"]
        for e in p["events"]:
            assert e["at"] >= last; last = e["at"]
            if e["type"] == "O": stack.append(e["frame"])
            else: assert stack and stack.pop() == e["frame"]
        assert not stack
