"""The one input layer (qidf_ctl/textfile.py): what a usable text file is, refused in one
line naming the file; strict JSON."""

from __future__ import annotations

import os
import threading

import pytest

from qidf_ctl import textfile
from qidf_ctl.errors import NotFoundError, UsageError


def test_utf8_with_and_without_a_byte_order_mark(tmp_path):
    path = tmp_path / "q.tsv"
    path.write_bytes("\ufeff1\t\u043f\u0440\u0438\r\n2\tb\u2028c\n".encode())
    file = textfile.read(path, "queries file", "--queries")
    assert list(file.lines()) == [(1, "1\t\u043f\u0440\u0438"), (2, "2\tb\u2028c"), (3, "")]


@pytest.mark.parametrize("encoding, name", [("utf-16", "UTF-16"), ("utf-16-le", "UTF-16"),
                                            ("utf-16-be", "UTF-16"), ("utf-32", "UTF-32"),
                                            ("utf-32-le", "UTF-32")])
def test_wider_encodings_are_named(tmp_path, encoding, name):
    path = tmp_path / "q.jsonl"
    path.write_bytes('{"_id": "1", "text": "запрос x"}\n'.encode(encoding))
    with pytest.raises(UsageError, match=rf"q\.jsonl \(--queries\) is {name} text: save it "
                                         "as UTF-8"):
        textfile.read(path, "queries file", "--queries")


def test_binary_and_invalid_utf8_name_the_byte_and_the_line(tmp_path):
    path = tmp_path / "x"
    path.write_bytes(b"PK\x03\x04\x14\x00\x08\x00" * 10)
    with pytest.raises(UsageError, match=r"is binary, not text: it holds a NUL byte \(byte 5\)"):
        textfile.read(path, "qrels file")
    path.write_bytes(b"ok\nok\nbad \xff here\n")
    with pytest.raises(UsageError, match=r", line 3: not UTF-8 text \(byte 10"):
        textfile.read(path, "qrels file")


def test_missing_is_not_found_and_a_folder_is_usage(tmp_path):
    with pytest.raises(NotFoundError, match=r"TREC run .*nope\.run \(--baseline\) not found"):
        textfile.read(tmp_path / "nope.run", "TREC run", "--baseline")
    with pytest.raises(UsageError, match="is a folder: give the file inside it"):
        textfile.read(tmp_path, "TREC run", "--baseline")
    with pytest.raises(UsageError, match="the path is empty"):
        textfile.read("", "TREC run", "--baseline")
    with pytest.raises(UsageError, match="cannot read"):
        textfile.read("a\0b", "TREC run", "--baseline")


def test_an_unreadable_file_is_usage(tmp_path):
    path = tmp_path / "secret"
    path.write_text("x")
    path.chmod(0)
    if os.geteuid() == 0:  # root reads anything: a path through a file stands in
        path = tmp_path / "secret" / "below"
    with pytest.raises(UsageError, match="cannot read"):
        textfile.read(path, "password file")


def test_devices_and_pipes_are_read_within_the_bound(tmp_path):
    with pytest.raises(UsageError, match="binary"):  # the first chunk ends it
        textfile.read("/dev/zero", "queries file")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)

    def writer():
        with open(fifo, "w") as fh:
            fh.write("1\thello\n")

    thread = threading.Thread(target=writer)
    thread.start()
    assert textfile.read(fifo, "queries file").text == "1\thello\n"
    thread.join()


def test_the_size_bound(tmp_path):
    path = tmp_path / "big"
    path.write_bytes(b"x" * 2000)
    with pytest.raises(UsageError, match="larger than"):
        textfile.read(path, "queries file", max_bytes=1000)


@pytest.mark.parametrize("text, fragment", [
    ('{"a": NaN}', "NaN is not a number"), ('{"a": -Infinity}', "-Infinity"),
    ('{"a": 1e999}', "overflows to infinity"), ('{"a": 1, "a": 2}', "appears twice"),
    ("[" * 100_000 + "]" * 100_000, "nested deeper"), ('{"a": ', "column"),
])
def test_strict_json(text, fragment):
    with pytest.raises(ValueError, match=fragment):
        textfile.loads_json(text)


def test_strict_json_keeps_ordinary_values():
    assert textfile.loads_json('{"a": [1, 2.5, "x", null, true]}') == {
        "a": [1, 2.5, "x", None, True]}


def test_fields_split_on_ascii_blanks_only():
    assert textfile.fields("q1 0\tdoc\u00a0a  1") == ["q1", "0", "doc\u00a0a", "1"]


def test_shown_values_are_cut():
    assert textfile.shown("x" * 500).endswith("...(cut)") and len(textfile.shown("x" * 500)) < 80
    assert textfile.kind_of(None) == "null" and textfile.kind_of(True).startswith("true")
