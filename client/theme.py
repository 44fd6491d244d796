"""The client's colours: one style sheet, named by what a thing is (a red card, a refusal)."""

from __future__ import annotations

from prompt_toolkit.styles import Style

STYLE = Style.from_dict(
    {
        "title": "reverse bold",
        "title.dim": "reverse",
        "panel.title": "bold underline",
        "dim": "#888888",
        "ok": "ansigreen",
        "warning": "ansiyellow bold",
        "alarm": "bg:ansired ansiwhite bold",
        "refusal": "ansired bold",
        "prompt": "ansicyan bold",
        "turn": "ansicyan bold",
        "player": "",
        "player.me": "bold",
        "score": "ansiblue",
        "meld.number": "bold",
        "card.red": "ansired bold",
        "card.black": "bold",
        "card.joker": "ansimagenta bold",
        "card.planned": "#666666 strike",
        "card.selected": "reverse",
        "cursor": "ansicyan bold",
        "joker.note": "ansimagenta",
        "log": "",
        "chat": "ansigreen",
        "chat.name": "ansigreen bold",
        "separator": "#555555",
        "lobby.selected": "reverse",
        "completion-menu.completion": "bg:#444444 #ffffff",
        "completion-menu.completion.current": "bg:#00aaaa #000000",
    }
)
