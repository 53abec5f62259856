"""Reading back a tree untrusted code wrote: hostile tar entries are skipped, nothing is written through a
link, modes are tamed, and the tree replaces the working tree but never its ``.git``."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

from healer.heal.treecopy import extract, replace_tree


def _archive(entries: list[tuple[tarfile.TarInfo, bytes]]) -> io.BytesIO:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for info, data in entries:
            info.size = len(data) if info.isfile() else 0
            archive.addfile(info, io.BytesIO(data) if info.isfile() else None)
    buffer.seek(0)
    return buffer


def _entry(name: str, kind: bytes = tarfile.REGTYPE, *, mode: int = 0o644, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.mode = mode
    info.linkname = link
    return info


def test_hostile_entries_are_skipped_and_nothing_is_written_through_a_link(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "root"
    root.mkdir()
    stream = _archive(
        [
            (_entry("ok.txt"), b"fine\n"),
            (_entry("bin/tool", mode=0o4777), b"#!/bin/sh\n"),
            (_entry("/etc/evil"), b"x"),
            (_entry("../escape.txt"), b"x"),
            (_entry("out", tarfile.SYMTYPE, link=str(outside)), b""),
            (_entry("out/planted.txt"), b"x"),
            (_entry("dev", tarfile.CHRTYPE), b""),
            (_entry("copy.txt", tarfile.LNKTYPE, link="ok.txt"), b""),
            (_entry("steal", tarfile.LNKTYPE, link="/etc/passwd"), b""),
            (_entry(".git/config"), b"[core]\n"),
        ]
    )

    skipped = extract(stream, root)

    assert sorted(skipped) == sorted(
        ["/etc/evil", "../escape.txt", "out/planted.txt", "dev", "steal", ".git/config"]
    )
    assert list(outside.iterdir()) == [] and not (tmp_path / "escape.txt").exists()
    assert (root / "ok.txt").read_text() == "fine\n"
    assert (root / "copy.txt").read_text() == "fine\n" and not (root / "copy.txt").is_symlink()
    assert (root / "bin" / "tool").stat().st_mode & 0o7777 == 0o755  # no set-id bit, not world-writable
    assert (root / "out").is_symlink() and str((root / "out").readlink()) == str(
        outside
    )  # kept, not followed
    assert not (root / ".git").exists()


def test_the_tree_replaces_the_working_tree_but_not_its_git(tmp_path: Path) -> None:
    dest, source = tmp_path / "dest", tmp_path / "source"
    (dest / "old").mkdir(parents=True)
    (dest / ".git").write_text("gitdir: elsewhere\n")
    (dest / "old" / "gone.txt").write_text("x")
    (source / "new").mkdir(parents=True)
    (source / "new" / "here.txt").write_text("y")

    replace_tree(dest, source)

    assert sorted(p.name for p in dest.iterdir()) == [".git", "new"]
    assert (dest / ".git").read_text() == "gitdir: elsewhere\n"
    assert (dest / "new" / "here.txt").read_text() == "y"
