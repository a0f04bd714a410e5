import os
import stat

import pytest

from atomic_file import FileWriteError, write_text_atomically


def test_writes_a_new_file_readable_by_others(tmp_path):
    path = tmp_path / "out.json"
    write_text_atomically(path, "{}\n")
    assert path.read_text() == "{}\n"
    assert os.stat(path).st_mode & stat.S_IRGRP, "mkstemp's 0600 was not widened"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_replaces_an_existing_file_whole(tmp_path):
    path = tmp_path / "out.json"
    write_text_atomically(path, "x" * 100000)
    write_text_atomically(path, "short")
    assert path.read_text() == "short"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_a_missing_folder_names_the_path(tmp_path):
    path = tmp_path / "missing" / "out.json"
    with pytest.raises(FileWriteError, match="missing/out.json.*folder"):
        write_text_atomically(path, "x")


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(FileWriteError, match="is a directory"):
        write_text_atomically(tmp_path, "x")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_a_device_file_is_refused_and_left_in_place():
    with pytest.raises(FileWriteError, match="/dev/full"):
        write_text_atomically("/dev/full", "x")
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)
