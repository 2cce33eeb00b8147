"""A bot's folder as it will be unpacked, its links followed as the kernel follows them.

Reading a link's target as text is not enough: in ``a/a/a/l -> ../../..`` plus
``esc -> a/a/a/l/../../../etc/shadow`` the text of ``esc`` reads as ``a/etc/shadow``,
but the kernel walks ``a/a/a/l`` first (to the folder's root) and only then climbs the
three ``..``: out of the folder. So every link of an archive is looked up here, on the
whole tree, component by component as the kernel does:

- a link met on the way is followed (its target read from the link's own folder), the
  last component included, as a reader that opens the path does;
- ``..`` goes to the parent folder, and at the root leaves the bot's folder;
- a loop of links, or more than :data:`MAX_LINKS` of them in one lookup, is refused (the
  kernel gives up there too: ELOOP);
- where the tree ends (a name that is not in the archive, or a file with more of the
  path after it) the rest is read as text from there, and still refused if it climbs out.

Links resolve the same wherever they are met from, so each is resolved once
(:meth:`Tree.check_links` is linear in the tree, however its links chain): the work and
memory are bounded by the archive's own limits on files and headers.
"""

from __future__ import annotations

import posixpath

from arena.engine import quoted
from arena.errors import Invalid

MAX_LINKS = 40  # links followed in one lookup: the kernel's own limit (MAXSYMLINKS)
LEAVES = "leaves the bot's folder"
LOOP = "is a loop of links"
TOO_MANY = f"goes through more than {MAX_LINKS} links"


class _Refused(Exception):
    """A lookup that fails: ``reason`` (LEAVES, LOOP, TOO_MANY), met ``through`` the link
    named (empty: none was followed)."""

    def __init__(self, reason: str, through: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.through = through


class _Deep(Exception):
    """A lookup that has met more links being resolved, one inside the other, than it may
    follow: refused for the lookup that began it, not remembered for the links met."""


class _Node:
    """A path of the tree: a folder (with its entries), a file, or a link (its target,
    and once resolved where it leads)."""

    __slots__ = (
        "children", "kind", "named", "parent", "path", "place", "refused", "state", "target", "used"
    )  # fmt: skip

    def __init__(self, path: str, kind: str, parent: _Node | None) -> None:
        self.path = path
        self.kind = kind  # dir, file or link
        self.parent = parent
        self.children: dict[str, _Node] = {}
        self.target = ""
        self.named = False  # a folder's: named by an entry of its own (twice is twice)
        self.state = 0  # a link's: 0 not resolved yet, 1 resolving, 2 resolved
        self.place: _Node | str | None = None  # where a resolved link leads (a path: past the tree)
        self.refused: _Refused | None = None  # why a resolved link's lookup fails
        self.used = 0  # links followed to resolve it (itself aside)


class Tree:
    """The paths of an archive as they come (:meth:`add`, each checked at once), then its
    links looked up on the whole (:meth:`check_links`), and paths found (:meth:`find`)."""

    def __init__(self) -> None:
        self.root = _Node("", "dir", None)
        self.links: list[_Node] = []

    def add(self, path: str, kind: str, target: str = "") -> None:
        """One path (relative and normal: no ``.`` or ``..``) of kind ``dir``, ``file`` or
        ``link``; :class:`Invalid` for one the archive already holds, one under a file or
        a link (it would be written through it), or a file or link where other paths go
        through a folder."""
        *parents, name = path.split("/")
        here = self.root
        for part in parents:
            node = here.children.get(part)
            if node is None:
                node = here.children[part] = _Node(_joined(here, part), "dir", here)
            elif node.kind == "link":  # it would be written where the link points
                raise Invalid(f"path {quoted(path)}: goes through the link {quoted(node.path)}")
            elif node.kind == "file":
                raise Invalid(f"path {quoted(path)}: goes through the file {quoted(node.path)}")
            here = node
        node = here.children.get(name)
        if node is not None:
            if node.kind == kind == "dir" and not node.named:  # a folder named after its paths
                node.named = True
                return
            if node.kind == "dir" and node.children and kind != "dir":
                raise Invalid(f"path {quoted(path)}: a {kind}, and a folder of other paths")
            raise Invalid(f"path {quoted(path)}: twice in the archive")
        node = here.children[name] = _Node(path, kind, here)
        node.named = True
        if kind == "link":
            node.target = target
            self.links.append(node)

    def check_links(self) -> None:
        """Every link looked up as a reader would open it; :class:`Invalid` naming the
        first (by path) whose lookup leaves the folder, loops or follows too many."""
        for link in sorted(self.links, key=lambda n: n.path):
            try:
                self._follow(link, 0, 0)
            except _Refused as e:
                own = link.refused or e  # why its own lookup failed
                named = own.through not in ("", link.path)
                through = f" (through {quoted(own.through)})" if named else ""
                raise Invalid(
                    f"link {quoted(link.path)}: its target {own.reason}{through}"
                ) from None
            except _Deep:
                raise Invalid(f"link {quoted(link.path)}: its target {TOO_MANY}") from None

    def find(self, path: str) -> str | None:
        """The path of the tree that ``path`` names once its links are followed, or None
        where it names nothing in the tree (or leaves it)."""
        try:
            place, _ = self._walk(self.root, path, 0, 0)
        except (_Refused, _Deep):
            return None
        return place.path if isinstance(place, _Node) else None

    def _follow(self, link: _Node, used: int, depth: int) -> tuple[_Node | str, int]:
        """Where ``link`` leads, and the links a lookup has followed once through it
        (``used`` of them before it). A link is resolved once and remembered: where it
        leads does not depend on where it is met from. ``depth``: the links being
        resolved around this one, each followed by the lookup that met this one."""
        if link.state == 1:
            raise _Refused(LOOP, link.path)
        if link.state == 0:
            if depth >= MAX_LINKS:  # whoever met it follows too many: not this one's fault
                raise _Deep
            link.state = 1
            try:
                assert link.parent is not None  # the root is a folder
                link.place, link.used = self._walk(link.parent, link.target, 0, depth + 1)
            except _Refused as e:
                link.refused = e
            except _Deep:
                link.state = 0  # resolved later, from closer to it
                raise
            link.state = 2
        if link.refused is not None:
            raise _Refused(link.refused.reason, link.path)
        used += 1 + link.used
        if used > MAX_LINKS:
            raise _Refused(TOO_MANY, link.path)
        assert link.place is not None
        return link.place, used

    def _walk(self, start: _Node, path: str, used: int, depth: int) -> tuple[_Node | str, int]:
        """``path`` looked up from the folder ``start``: the node it ends at, or the
        normal path it names past the end of the tree; and the links followed."""
        if path.startswith("/"):
            raise _Refused("is an absolute path")
        here = start
        parts = [p for p in path.split("/") if p not in ("", ".")]
        last = ""  # the link last followed, for the message
        for k, part in enumerate(parts):
            if part == "..":
                if here.parent is None:
                    raise _Refused(LEAVES, last)
                here = here.parent
                continue
            node = here.children.get(part)
            if node is not None and node.kind == "link":
                place, used = self._follow(node, used, depth)
                last = node.path
                if isinstance(place, str):  # past the tree: the rest is text
                    return _past(place, parts[k + 1 :], last), used
                node = place
            if node is not None and node.kind == "dir":
                here = node
                continue
            if node is not None and k == len(parts) - 1:
                return node, used  # a file, the path's last component
            at = node.path if node is not None else _joined(here, part)  # a file, or nothing
            return _past(at, parts[k + 1 :], last), used
        return here, used


def _joined(folder: _Node, name: str) -> str:
    return f"{folder.path}/{name}" if folder.path else name


def _past(at: str, rest: list[str], through: str) -> str:
    """The path ``rest`` names from ``at``, where the tree ends: read as text, refused if
    it climbs out of the folder."""
    normal = posixpath.normpath("/".join([at, *rest]))
    if normal == ".." or normal.startswith("../"):
        raise _Refused(LEAVES, through)
    return normal
