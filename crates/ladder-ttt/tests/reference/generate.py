#!/usr/bin/env python3
"""Reference vectors for ladder's TrueSkill Through Time (crates/ladder-ttt).

Runs the reference package `trueskillthroughtime` 1.1.0 (PyPI; Landfried & Mocskos, "TrueSkill
Through Time", Journal of Statistical Software 2025) on seeded random histories of every case type
ladder supports: two-player games, draws (p_draw), teams, more than two teams, drift over
fractional times, priors, one batch, several games per batch. Prints JSON: for each case its input
and the learning curve of every player after `History.convergence(epsilon=1e-6, iterations=2000)`.

    python3 generate.py > vectors.json       # what is committed
    python3 generate.py --check vectors.json [CASE...]
        # exit 1 unless the installed package (it must be 1.1.0) gives the committed numbers again,
        # for the cases named (default: all; all take minutes, the tests name the quick ones)

Games of more than two teams are written in finishing order (highest result first): the package's
`likelihood_teams` hands team e the message of chain position o[e] where position o^-1[e] is meant,
which is the same only when the order is its own inverse (docs/algorithms/ttt.md).
"""
import importlib.metadata
import json
import random
import sys

import trueskillthroughtime as ttt

VERSION = "1.1.0"
# Sweeps allowed: enough for every case to converge to epsilon (the package's default 30 is not).
ITERATIONS = 2000


def case(name, seed, players, games, *, team_size=(1, 1), n_teams=(2, 2), p_draw=0.0,
         draw_rate=0.0, gamma=0.03, beta=1.0, mu=0.0, sigma=6.0, times="days",
         per_batch=(1, 1), priors=0):
    rng = random.Random(seed)
    names = ["p%02d" % i for i in range(players)]
    skill = {n: rng.gauss(0, 2) for n in names}
    composition, results, time_list = [], [], []
    t = 0.0
    while len(composition) < games:
        if times == "days":
            t += rng.randint(1, 5)
        elif times == "fractions":
            t += rng.choice([0.25, 0.5, 1.5, 2.75, 10.125])
        elif times == "one":
            t = 0.0
        for _ in range(rng.randint(*per_batch)):
            k = rng.randint(*n_teams)
            size = rng.randint(*team_size)
            chosen = rng.sample(names, k * size)
            teams = [chosen[i * size:(i + 1) * size] for i in range(k)]
            perf = [sum(skill[p] for p in team) + rng.gauss(0, beta * size ** 0.5) for team in teams]
            order = sorted(range(k), key=lambda i: -perf[i])
            ranks = [0] * k
            for pos, i in enumerate(order):
                ranks[i] = k - pos
            # Draws: a pair of neighbours in the finishing order tie.
            if draw_rate and rng.random() < draw_rate:
                pos = rng.randrange(k - 1)
                ranks[order[pos + 1]] = ranks[order[pos]]
            if k > 2:
                # finishing order, ties kept in written order
                idx = sorted(range(k), key=lambda i: -ranks[i])
                teams = [teams[i] for i in idx]
                ranks = [ranks[i] for i in idx]
            composition.append(teams)
            results.append([float(r) for r in ranks])
            time_list.append(t)
    prior_map = {}
    for n in names[:priors]:
        prior_map[n] = (round(rng.uniform(-3, 3), 3), round(rng.uniform(0.5, 4), 3))
    return {
        "name": name, "mu": mu, "sigma": sigma, "beta": beta, "gamma": gamma, "p_draw": p_draw,
        "composition": composition, "results": results, "times": time_list,
        "priors": prior_map,
    }


CASES = [
    case("two_player", 1, 8, 150),
    case("draws", 2, 8, 150, p_draw=0.25, draw_rate=0.25),
    case("teams", 3, 10, 120, team_size=(2, 2)),
    case("uneven_teams", 4, 10, 100, team_size=(1, 3)),
    case("three_or_four_teams", 5, 10, 80, n_teams=(3, 4)),
    case("multi_team_draws", 6, 10, 80, n_teams=(3, 4), p_draw=0.1, draw_rate=0.3),
    case("drift_fractions", 7, 6, 120, times="fractions", gamma=0.2),
    case("priors", 8, 8, 100, priors=4, mu=1.0, sigma=3.0, beta=0.7, gamma=0.05),
    case("one_batch", 9, 6, 30, times="one", per_batch=(30, 30)),
    case("tournaments", 10, 12, 200, per_batch=(3, 9), p_draw=0.05, draw_rate=0.1),
]


def run(c):
    priors = {n: ttt.Player(ttt.Gaussian(m, s), c["beta"], c["gamma"]) for n, (m, s) in c["priors"].items()}
    h = ttt.History(c["composition"], c["results"], c["times"], priors, mu=c["mu"],
                    sigma=c["sigma"], beta=c["beta"], gamma=c["gamma"], p_draw=c["p_draw"])
    step, iterations = h.convergence(epsilon=1e-6, iterations=ITERATIONS, verbose=False)
    curves = {a: [[t, g.mu, g.sigma] for (t, g) in lc] for a, lc in sorted(h.learning_curves().items())}
    return {"iterations": iterations, "curves": curves}


def main():
    check = len(sys.argv) >= 3 and sys.argv[1] == "--check"
    if check:
        installed = importlib.metadata.version("trueskillthroughtime")
        if installed != VERSION:
            print("trueskillthroughtime %s is installed; the vectors are of %s" % (installed, VERSION))
            sys.exit(1)
    wanted = set(sys.argv[3:]) if check else set()
    out = {"package": "trueskillthroughtime", "version": VERSION, "epsilon": 1e-6, "iterations": ITERATIONS,
           "cases": []}
    for c in CASES:
        if wanted and c["name"] not in wanted:
            continue
        c = dict(c)
        c["expected"] = run(c)
        out["cases"].append(c)
    if check:
        with open(sys.argv[2]) as f:
            committed = {c["name"]: c for c in json.load(f)["cases"]}
        worst = 0.0
        for b in out["cases"]:
            a = committed[b["name"]]
            if a["composition"] != b["composition"] or a["results"] != b["results"] or a["times"] != b["times"]:
                print("case %s: the generated history differs from the committed one" % b["name"])
                sys.exit(1)
            for name, pts in a["expected"]["curves"].items():
                for p, q in zip(pts, b["expected"]["curves"][name]):
                    worst = max(worst, abs(p[1] - q[1]), abs(p[2] - q[2]))
        print("%d cases, largest difference from the committed vectors: %g" % (len(out["cases"]), worst))
        sys.exit(0 if worst < 1e-9 and out["cases"] else 1)
    json.dump(out, sys.stdout, indent=None, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
