"""``scala40`` with no address, run inside a test's network namespace (tests/test_lan_netns.py).

``python tests/lan_client.py INTERFACE DATA_DIR``: the client looks for hosts on
the interface with that address only, waits a few seconds, presses Enter (the
first host listed), and once its lobby is open leaves it with ``q``. The
fingerprint it then remembers in DATA_DIR says which host it joined.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from client.main import Options, find_and_join


async def visit(interface: str, data_dir: Path) -> int:
    with create_pipe_input() as pipe:
        joining = asyncio.create_task(
            find_and_join(
                Options("Cleo", "en"),
                data_dir,
                interfaces=[interface],
                input=pipe,
                output=DummyOutput(),
            )
        )
        await asyncio.sleep(4)  # the hosts answer within a second or two
        pipe.send_text("\r")
        await asyncio.sleep(3)  # TLS, the pin, the host's info, the lobby's first list
        pipe.send_text("q")
        return await asyncio.wait_for(joining, 20)


if __name__ == "__main__":
    sys.exit(asyncio.run(visit(sys.argv[1], Path(sys.argv[2]))))
