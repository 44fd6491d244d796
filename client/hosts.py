"""The LAN's hosts: the list ``scala40`` shows when it is given no address.

The hosts come from DNS-SD (``scala40_net.net.discovery``) as they answer; the
list is redrawn each time one appears, changes (its open tables) or leaves.
Each row shows the host's name, address, its fingerprint's first group and
open tables; ↑/↓ choose, Enter opens that host's lobby, ``q`` leaves. After a
few seconds with no host, the screen says so and how to join by address or
invite instead.

Anyone on the LAN may advertise any name: a host whose name is that of a host
joined before (``client.trust.posing_as``) with another fingerprint is flagged
on its row, and Enter on it asks first (y opens it, n or Esc does not).
"""

from __future__ import annotations

import asyncio
import textwrap
from collections.abc import Callable, Sequence

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.output import Output

from client.i18n import Text
from client.layout import PanelControl
from client.render import join_lines
from client.theme import STYLE
from scala40_net.net.discovery import BROWSE_SECONDS, FoundHost


def first_group(fingerprint: str) -> str:
    return fingerprint.split("-", 1)[0]


def host_row(host: FoundHost, t: Text, posing_as: str | None = None) -> tuple[str, str]:
    """A host's two lines: its name, address and open tables (flagged when ``posing_as``,
    the fingerprint of the host of that name joined before, is not this one's); then the
    fingerprint it is pinned to, its first group first (a line of its own, so the count of
    tables is never cut at 80 columns)."""
    first = t("hosts_row", name=host.name, address=host.target, open=host.open_tables)
    if posing_as is not None:
        first = t("hosts_row_posing", row=first, name=host.name)
    return first, t("hosts_row_fp", fp=host.fingerprint)


class HostsScreen:
    """Choose a host: ``run_async`` returns the one chosen, or None.

    ``hosts`` is read at each redraw (a ``Browser``'s ``hosts``); call ``changed``
    when it has something new.
    """

    def __init__(
        self,
        text: Text,
        hosts: Callable[[], Sequence[FoundHost]],
        *,
        input: Input | None = None,
        output: Output | None = None,
        patience: float = BROWSE_SECONDS,
        posing_as: Callable[[FoundHost], str | None] = lambda host: None,
    ) -> None:
        self.text = text
        self._hosts = hosts
        self.posing_as = posing_as
        self.asking: FoundHost | None = None  # a flagged host chosen: waiting for y or n
        self.patience = patience
        self.cursor = 0
        self.waited = False  # the few seconds of looking are over
        self.list_window = Window(
            PanelControl(self._draw_hosts, focusable=True, key_bindings=self._keys())
        )
        self.app: Application[FoundHost | None] = Application(
            layout=Layout(
                HSplit(
                    [
                        Window(PanelControl(self._draw_title), height=1),
                        Window(height=1, char="─", style="class:separator"),
                        self.list_window,
                        Window(height=1, char="─", style="class:separator"),
                        Window(PanelControl(self._draw_footer), height=self._footer_height),
                    ]
                ),
                focused_element=self.list_window,
            ),
            style=STYLE,
            full_screen=True,
            input=input,
            output=output,
        )

    def hosts(self) -> list[FoundHost]:
        return list(self._hosts())

    def changed(self) -> None:
        """New news from the LAN: keep the cursor on the list, redraw."""
        self.cursor = min(self.cursor, max(len(self.hosts()) - 1, 0))
        self.app.invalidate()

    # --- drawing ----------------------------------------------------------------------

    def _draw_title(self, width: int, height: int) -> StyleAndTextTuples:
        return [("class:title", f" {self.text('hosts_title')} ")]

    def _draw_hosts(self, width: int, height: int) -> StyleAndTextTuples:
        hosts = self.hosts()
        if not hosts:
            key = "hosts_none" if self.waited else "hosts_looking"
            said = textwrap.wrap(self.text(key), max(width - 1, 8))
            return join_lines([[("class:dim", piece)] for piece in said])
        lines: list[StyleAndTextTuples] = []
        for i, host in enumerate(hosts):
            style = "class:lobby.selected" if i == self.cursor else ""
            first, fingerprint = host_row(host, self.text, self.posing_as(host))
            lines.append([(style, f" {first[: width - 2]} ")])
            lines.append([("class:dim", fingerprint[:width])])
        return join_lines(lines)

    def _footer_lines(self, width: int) -> list[str]:
        """The keys; while a flagged host waits for y or n, the question, wrapped."""
        host = self.asking
        if host is None:
            return [self.text("hosts_keys")[:width]]
        question = self.text(
            "hosts_ask_posing", name=host.name, new=host.fingerprint, old=self.posing_as(host) or ""
        )
        return textwrap.wrap(question, max(width - 1, 8))

    def _footer_height(self) -> int:
        return len(self._footer_lines(self.app.output.get_size().columns))

    def _draw_footer(self, width: int, height: int) -> StyleAndTextTuples:
        style = "class:dim" if self.asking is None else "class:warning"
        return join_lines([[(style, line)] for line in self._footer_lines(width)])

    # --- keys -------------------------------------------------------------------------

    def _keys(self) -> KeyBindings:
        kb = KeyBindings()

        @kb.add("up")
        def _up(event: KeyPressEvent) -> None:
            self.cursor = max(self.cursor - 1, 0)

        @kb.add("down")
        def _down(event: KeyPressEvent) -> None:
            self.cursor = min(self.cursor + 1, max(len(self.hosts()) - 1, 0))

        asking = Condition(lambda: self.asking is not None)

        @kb.add("enter", filter=~asking)
        def _open(event: KeyPressEvent) -> None:
            hosts = self.hosts()
            if not hosts:
                return
            host = hosts[min(self.cursor, len(hosts) - 1)]
            if self.posing_as(host) is None:
                event.app.exit(result=host)
            else:
                self.asking = host

        @kb.add("y", filter=asking)
        @kb.add("s", filter=asking)  # sì
        def _yes(event: KeyPressEvent) -> None:
            event.app.exit(result=self.asking)

        @kb.add("n", filter=asking)
        @kb.add("escape", filter=asking)
        def _no(event: KeyPressEvent) -> None:
            self.asking = None

        @kb.add("q")
        @kb.add("c-c")
        @kb.add("c-q")
        def _quit(event: KeyPressEvent) -> None:
            event.app.exit(result=None)

        return kb

    async def run_async(self) -> FoundHost | None:
        async def wait() -> None:
            await asyncio.sleep(self.patience)
            self.waited = True
            self.app.invalidate()

        waiting = asyncio.get_running_loop().create_task(wait())
        try:
            return await self.app.run_async()
        finally:
            waiting.cancel()
