#!/usr/bin/env bash
# The README's table of boards: solves the empty board of every board with width + height
# <= 13, strong and weak, with transpo-c4 (default: target/release/transpo-c4; --threads 2),
# and prints one Markdown row each beside the published outcome and last move:
#   + first player wins, - second player wins, = draw; the move the game ends on.
# Published: John Tromp, "John's Connect Four Playground" (tromp.github.io/c4/c4.html), every
# board with width + height <= 15; the last moves from Christophe Steininger's readme
# (github.com/ChristopheSteininger/c4, "Last Move").
#
#   crates/connect4/scripts/boards.sh [BINARY] > table.md
set -euo pipefail
bin="${1:-target/release/transpo-c4}"
published="
4x4 = 16
4x5 = 20
5x4 = 20
4x6 = 24
5x5 = 25
6x4 - 24
4x7 = 28
5x6 = 30
6x5 = 30
7x4 = 28
4x8 = 32
5x7 = 35
6x6 - 36
7x5 = 35
8x4 - 32
4x9 = 36
5x8 = 40
6x7 + 41
7x6 + 41
8x5 + 39
9x4 - 36
"
echo "| board | W + H | outcome | last move | strong | weak | published | agree |"
echo "|---|---:|---|---:|---:|---:|---|---|"
while read -r board outcome last; do
  [ -n "$board" ] || continue
  w="${board%x*}"
  h="${board#*x}"
  strong=$(echo - | "$bin" --board "$board" --threads 2 2>"/tmp/boards-$board.err")
  ending=$(grep -E "wins|draw" "/tmp/boards-$board.err")
  weak=$(echo - | "$bin" --board "$board" --threads 2 --weak 2>/dev/null)
  score=$(echo "$strong" | awk '{print $2}')
  mine=$( [ "$score" -gt 0 ] && echo + || { [ "$score" -lt 0 ] && echo - || echo =; })
  move=$(echo "$ending" | grep -oE "move [0-9]+" | grep -oE "[0-9]+")
  agree=$( [ "$mine $move" = "$outcome $last" ] && echo yes || echo NO)
  seconds() { awk -v us="$1" 'BEGIN { printf "%.2f s", us / 1e6 }'; }
  words=$(echo "$ending" | sed 's/ on move.*//; s/ (the board.*//')
  echo "| $board | $((w + h)) | $words | $move | $(seconds "$(echo "$strong" | awk '{print $4}')") | $(seconds "$(echo "$weak" | awk '{print $4}')") | $outcome $last | $agree |"
  rm -f "/tmp/boards-$board.err"
done <<< "$published"
