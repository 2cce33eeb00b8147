"""``bot humans NAME on|off``: whether people may challenge a bot from the web pages
(docs/web.md, "Playing a bot yourself"), with the bot's own token or the organizer's."""

from __future__ import annotations

import argparse
import os

from arena.cli.client import Arena
from arena.cli.common import print_json
from arena.proto.truco.v1 import arena_pb2 as api


def cmd_bot_humans(args: argparse.Namespace) -> int:
    token = args.token or os.environ.get("ARENA_TOKEN") or None
    request = api.SetBotHumansRequest(bot=args.name, on=args.switch == "on")
    bot = Arena.from_env().call("SetBotHumans", request, organizer=token is None, token=token)
    if args.json:
        print_json(bot)
    elif bot.humans:
        print(f"{bot.name}: people may challenge it from the web pages (/play)")
    else:
        print(f"{bot.name}: only its owner plays it from the web pages")
    return 0
