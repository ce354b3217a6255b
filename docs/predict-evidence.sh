#!/usr/bin/env bash
# The evidence table of docs/real-ladders.md ("Home advantage and margin"): every algorithm with
# a win expectancy tuned on a football history without and with home seats, and on a tennis
# history, each scored on its held-out 30%.
#
#   docs/predict-evidence.sh FOOTBALL.csv TENNIS.csv...
#
# FOOTBALL.csv has the columns of fixtures/football (date, home_team, away_team, home_score,
# away_score, neutral); the TENNIS files are Jeff Sackmann's layout (--preset tennis). `ladder`
# is taken from $LADDER, else from PATH. Prints one Markdown table row per algorithm and ladder:
#   | ladder | algo | held-out log loss, own constants | with home (and margin) | best |
# CI runs it on the slices in fixtures/ (crates/ladder-cli/tests/it/home.rs).
set -euo pipefail
export LC_ALL=C
ladder=${LADDER:-ladder}
football=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
columns=at=date,a=home_team,b=away_team,score_a=home_score,score_b=away_score

"$ladder" --ledger "$work/neutral.db" import --auto-join --columns "$columns" "$football" >/dev/null
"$ladder" --ledger "$work/home.db" import --auto-join --home a --columns "$columns,neutral=neutral" \
  "$football" >/dev/null
"$ladder" --ledger "$work/tennis.db" import --auto-join --skip-invalid --preset tennis "$@" >/dev/null

# The constants each algorithm searches of its own (ladder tune's list before home, margin and
# revert existed).
own() {
  case $1 in
    tgr) echo "--param sc --param p" ;;
    glicko) echo "--param c --param period" ;;
    glicko2) echo "--param tau --param period" ;;
    elo) echo "--param k" ;;
    weng-lin) echo "--param beta" ;;
  esac
}

# The held-out log loss (4 decimals) or the best constants of one tune run, from its JSON (one
# line, keys sorted).
field() {
  case $1 in
    loss) sed -E 's/.*"held_out":\{"best":\{[^}]*"log_loss":([0-9.]+).*/\1/' | xargs printf '%.4f' ;;
    best) sed -E 's/^\{"algorithm":"[^"]*","best":\[([^]]*)\].*/\1/; s/"//g; s/,/ /g' ;;
  esac
}

for algo in tgr glicko glicko2 elo weng-lin; do
  # shellcheck disable=SC2046
  plain=$("$ladder" --ledger "$work/neutral.db" tune --algo "$algo" $(own "$algo") --format json 2>/dev/null)
  full=$("$ladder" --ledger "$work/home.db" tune --algo "$algo" --format json 2>/dev/null)
  echo "| football | $algo | $(field loss <<<"$plain") | $(field loss <<<"$full") | $(field best <<<"$full") |"
done
for algo in tgr glicko glicko2 elo weng-lin; do
  # shellcheck disable=SC2046
  plain=$("$ladder" --ledger "$work/tennis.db" tune --algo "$algo" $(own "$algo") --format json 2>/dev/null)
  full=$("$ladder" --ledger "$work/tennis.db" tune --algo "$algo" --format json 2>/dev/null)
  echo "| tennis | $algo | $(field loss <<<"$plain") | $(field loss <<<"$full") | $(field best <<<"$full") |"
done
