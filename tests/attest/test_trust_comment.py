"""A trust entry's ``comment`` holding U+202E, ESC or a line feed (KI441, fresh14 F7).

``kistore trust add --comment`` wrote such a comment, exit 0; ``check`` and ``verify`` said
nothing, and ``check``'s KI427 line, what a reviewer reads to approve trust, printed the
U+202E raw (the rest of the line shown reversed) and the line feed raw (a maintainer grant
read as a rerun grant, under a forged ``ok:`` line). ``trust add`` now refuses it, ``check``
and ``verify`` report one stored as an error, and KI427 prints it escaped.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ..conftest import git
from ..prs import KISTORE

RLO = "evil\u202eed\x1b[31m"
LF = "CI) for rerun\nok: HEAD~1..HEAD: 0 errors"


def _k(store: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([KISTORE, *args], cwd=store, capture_output=True, text=True)


@pytest.fixture
def store(tmp_path) -> Path:
    assert _k(tmp_path, "init", "s").returncode == 0
    done = _k(tmp_path, "key", "generate", str(tmp_path / "k2"))
    assert done.returncode == 0, done.stderr
    return tmp_path / "s"


@pytest.mark.parametrize(("comment", "said"), [
    (RLO, "'evil\\u202eed\\x1b[31m' holds U+202E RIGHT-TO-LEFT OVERRIDE at character 5, a "
          "bidirectional control, which reorders the text shown around it: remove it"),
    (LF, "'CI) for rerun\\nok: HEAD~1..HEAD: 0 errors' holds U+000A LINE FEED at character "
         "14, a line break: a key's comment is printed within one line (the gate's KI427 "
         "line a reviewer reads to approve trust), and written raw it would read as lines "
         "of its own: replace it by a space"),
])
def test_trust_add_refuses_a_comment_that_reorders_or_breaks_the_line(store, comment, said):
    # on BASE 08d9480b: "trusted SHA256:... for maintainer", exit 0
    done = _k(store, "trust", "add", str(store.parent / "k2.pub"), "--role", "maintainer",
              "--comment", comment)
    assert (done.returncode, done.stdout, done.stderr) == (
        1, "", f"error: --comment {said}; nothing was written\n")
    assert not (store / "store/trust/keys.json").exists()


def test_a_stored_comment_is_an_error_of_check_and_verify_and_printed_escaped(store):
    pub = (store.parent / "k2.pub").read_text().strip()
    assert _k(store, "trust", "add", str(store.parent / "k2.pub"), "--role",
              "maintainer").returncode == 0
    doc = json.loads((store / "store/trust/keys.json").read_text())
    doc["keys"][0]["comment"] = RLO  # written by hand (or by `trust add` before)
    (store / "store/trust/keys.json").write_text(json.dumps(doc, indent=2) + "\n")
    keyid = doc["keys"][0]["keyid"]
    assert pub.startswith("ssh-ed25519 ")
    git(store, "add", "-A")
    git(store, "commit", "-qm", "trust k2")
    said = (f"the comment of key {keyid}: 'evil\\u202eed\\x1b[31m' holds U+202E "
            "RIGHT-TO-LEFT OVERRIDE at character 5, a bidirectional control, which reorders "
            "the text shown around it: remove it")
    fix = ("A key's `comment` in store/trust/keys.json says who holds it in one line: no "
           "control character (ESC), no bidirectional control (U+202E), no line break; "
           "`kistore trust add` refuses such a comment. Write a plain one in a commit: "
           "`kistore trust add KEY.pub --role ROLE --comment 'NEW'` (the key's roles and "
           "window stay as they are).")
    for args in (("verify", "--json"), ("check", "HEAD~1..HEAD", "--json")):
        done = _k(store, *args)
        assert done.returncode == 1, done.stdout + done.stderr
        found = [f for f in json.loads(done.stdout)["findings"] if f["rule"] == "KI441"]
        assert [(f["severity"], f["name"], f["file"], f["pointer"], f["message"], f["hint"],
                 f["extra"]) for f in found] == [
            ("error", "trust-comment-refused", "store/trust/keys.json", "/keys/0/comment",
             said, fix, {"keyid": keyid})]
    # KI427's line, what the reviewer reads, prints it escaped (on BASE: U+202E raw)
    done = _k(store, "check", "HEAD~1..HEAD")
    assert (f"store/trust/keys.json:/keys/0: info KI427 key-newly-trusted: the range trusts "
            f"key {keyid} (evil\\u202eed\\x1b[31m) for maintainer: valid from when it "
            "enters the trust file, no expiry\n") in done.stdout
    assert "\u202e" not in done.stdout + done.stderr
    # the fix: a plain comment, in a commit
    done = _k(store, "trust", "add", str(store.parent / "k2.pub"), "--role", "maintainer",
              "--comment", "k2's holder")
    assert done.returncode == 0, done.stderr
    git(store, "commit", "-qam", "plain comment")
    done = _k(store, "verify", "--json")
    assert [f for f in json.loads(done.stdout)["findings"] if f["rule"] == "KI441"] == []
