"""The statuses and fault kinds have one owner (harness/core/verdicts.py): the words docs/interface.md
names, written everywhere (JSON, CSV, SQLite, the report, the table) exactly as the plain
words were, and equal to the plain words read back from a record or a worker."""
import csv
import io
import json
import sqlite3

import jinja2
import pytest

from harness.core.verdicts import FAULT_KINDS, STATUSES, FaultKind, Status


def test_the_words_are_the_contracts():
    assert [str(status) for status in STATUSES] == ["ok", "load-error", "crashed",
                                                    "disqualified"]
    # the order of the JSON's "faults" object and the CSV's faults_* columns
    assert [str(kind) for kind in FAULT_KINDS] == ["invalid", "exception", "timeout", "crash"]


@pytest.mark.parametrize("word", [*STATUSES, *FAULT_KINDS])
def test_a_word_is_written_as_itself_everywhere(word):
    plain = word.value
    assert (str(word), f"{word}", f"{word:>14}") == (plain, plain, f"{plain:>14}")
    assert json.dumps({word: [word]}) == json.dumps({plain: [plain]})
    out = io.StringIO()
    csv.writer(out).writerow([word])
    assert out.getvalue().strip() == plain
    assert sqlite3.connect(":memory:").execute("SELECT ?", (word,)).fetchone() == (plain,)
    assert jinja2.Template("{{ w }} {{ w|e }}").render(w=word) == f"{plain} {plain}"


@pytest.mark.parametrize("word", [*STATUSES, *FAULT_KINDS])
def test_a_plain_word_read_back_is_the_member(word):
    plain = word.value
    assert plain == word and hash(plain) == hash(word)
    assert {word: 1}[plain] == 1 and {plain: 1}[word] == 1
    assert type(word)(plain) is word


def test_a_fault_kind_is_not_a_status():
    """`crash` is a fault, `crashed` the status it leaves: the two vocabularies stay apart."""
    assert not set(map(str, STATUSES)) & set(map(str, FAULT_KINDS))
    with pytest.raises(ValueError):
        Status(FaultKind.CRASH.value)
