"""Reading back a tree that untrusted code wrote: a tar stream, extracted with no trust in its contents.

The throwaway user's tree (see :mod:`healer.heal.isolation`) comes back as a tar archive its own ``tar``
wrote, so
every entry is checked here rather than by ``tarfile``'s extraction (whose ``data`` filter Python 3.10 and
early 3.11 releases lack): only relative names without ``..``; only directories, regular files, symbolic
links and hard links to a file already taken; nothing is ever written through a symbolic link (an entry
whose directory is a link, or lies outside, is skipped); modes are reduced to ``0644``/``0755``. A symbolic
link itself is kept as it is, pointing wherever it points, for the guard to judge; it is never followed.
"""

from __future__ import annotations

import os
import shutil
import tarfile
from pathlib import Path, PurePosixPath
from typing import IO


def extract(stream: IO[bytes], root: Path) -> list[str]:
    """Extract the tar ``stream`` into the empty directory ``root``; returns the names it skipped."""
    skipped: list[str] = []
    real_root = root.resolve()
    with tarfile.open(fileobj=stream, mode="r|") as archive:
        for member in archive:
            target = _target(real_root, member.name)
            if target is None or not (member.isdir() or member.isfile() or member.issym() or member.islnk()):
                skipped.append(member.name)
                continue
            if member.isdir():
                if not target.is_dir() or target.is_symlink():
                    _clear(target)
                    target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            _clear(target)
            if member.issym():
                os.symlink(member.linkname, target)
            elif member.islnk():
                source = _target(real_root, member.linkname)
                if source is None or source.is_symlink() or not source.is_file():
                    skipped.append(member.name)
                    continue
                shutil.copyfile(source, target)
                target.chmod(source.stat().st_mode & 0o777)
            else:
                source_file = archive.extractfile(member)
                if source_file is None:
                    skipped.append(member.name)
                    continue
                with source_file, open(target, "xb") as out:
                    shutil.copyfileobj(source_file, out)
                target.chmod(0o755 if member.mode & 0o111 else 0o644)
    return skipped


def _target(root: Path, name: str) -> Path | None:
    """Where ``name`` goes under ``root``, or None when it is absolute, climbs out, or its directory is (or
    passes through) a symbolic link."""
    parts = [p for p in PurePosixPath(name).parts if p not in ("", ".")]
    if not parts or name.startswith("/") or ".." in parts or ".git" in parts:
        return None
    target = root.joinpath(*parts)
    parent = target.parent
    if os.path.realpath(parent) != str(parent):  # a link somewhere on the way
        return None
    return target


def _clear(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def replace_tree(dest: Path, source: Path) -> None:
    """Make the working tree at ``dest`` exactly ``source``'s entries, ``dest``'s own ``.git`` kept."""
    for entry in dest.iterdir():
        if entry.name != ".git":
            _clear(entry)
    for entry in source.iterdir():
        if entry.name != ".git":
            entry.rename(dest / entry.name)
