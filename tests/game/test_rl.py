"""The PettingZoo environment (game/rl.py): PettingZoo's own API test, random hands, view-only observations."""

from __future__ import annotations

import random
import subprocess
import sys
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the `rl` extra is not installed: pip install -e '.[rl]'")

from pettingzoo.test import api_test  # noqa: E402

from game import GamePhase, IllegalActionError, Rules  # noqa: E402
from game.actions import Action, ActionType  # noqa: E402
from game.hand import shanten  # noqa: E402
from game.rl import ACTIONS, LAYOUT, NUM_ACTIONS, OBSERVATION_SIZE, action_index, env, raw_env  # noqa: E402
from game.seatview import SeatView  # noqa: E402
from game.tiles import NUM_PLAYING_KINDS, Tile  # noqa: E402
from game.wall import Wall  # noqa: E402

# PettingZoo's api_test advises a plain Box observation; its own masked card and board games use
# the same Dict of "observation" and "action_mask" and are exempted from these two by name.
_DICT_OBSERVATION_ADVICE = {
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
    "Observation is not a NumPy array",
}


def _play(e, choose, *, check=None):
    """Play one episode of ``e`` (already reset), ``choose(agent, mask)`` picking each action index;
    return each agent's total reward.
    """
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        totals[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        index = choose(agent, obs["action_mask"])
        if check is not None:
            check(agent, obs, index)
        e.step(index)
    return totals


def _random_choice(rng):
    return lambda agent, mask: int(rng.choice(np.flatnonzero(mask)))


def test_env_passes_pettingzoo_api_test():
    for kwargs in ({}, {"hands": 2, "shaped": True}):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            api_test(env(**kwargs), num_cycles=1000)
        assert {str(w.message) for w in caught} <= _DICT_OBSERVATION_ADVICE


def test_hundred_random_hands_are_zero_sum_and_every_action_legal():
    e = env()
    game_of = e.unwrapped
    rng = random.Random(22)
    start = Rules().starting_score

    def check(agent, obs, index):
        seat = int(agent.removeprefix("seat_"))
        legal = game_of.game.legal_actions(seat)
        assert ACTIONS[index] in legal
        assert set(np.flatnonzero(obs["action_mask"])) == {action_index(a) for a in legal}

    for hand in range(100):
        e.reset(seed=hand)
        totals = _play(e, lambda agent, mask: rng.choice(list(np.flatnonzero(mask))), check=check)
        game = game_of.game
        assert game.deal_number == 1 and game.phase is not GamePhase.DEAL
        assert sum(totals.values()) == 0
        assert [totals[f"seat_{s}"] for s in range(4)] == [score - start for score in game.scores]
        assert not e.agents  # every seat has left the finished episode


def test_observation_unchanged_when_other_seats_tiles_and_wall_are_scrambled():
    e = raw_env()
    rng = random.Random(5)
    checked = 0
    for seed in range(3):
        e.reset(seed=seed)
        while e.agents and not e.terminations[e.agent_selection]:
            deal = e.game.deal
            for agent in e.possible_agents:
                me = e.agent_name_mapping[agent]
                before = e.observe(agent)
                hands, wall = [list(h) for h in deal.hands], deal.wall
                _scramble(deal, me, rng)
                after = e.observe(agent)
                deal.hands[:], deal.wall = hands, wall
                np.testing.assert_array_equal(before["observation"], after["observation"])
                np.testing.assert_array_equal(before["action_mask"], after["action_mask"])
                checked += 1
            e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    assert checked > 300


def _scramble(deal, me, rng):
    """Deal the other seats' concealed tiles and the walls' playing tiles out again at random,
    each seat keeping as many tiles as it had and the bonus tiles staying where they were.
    """
    live, dead = (list(part) for part in deal.wall.remaining())
    others = [s for s in range(4) if s != me]
    pool = [Tile(k) for s in others for k in range(NUM_PLAYING_KINDS) for _ in range(deal.hands[s][k])]
    pool += [t for t in live + dead if not t.is_bonus]
    rng.shuffle(pool)
    for s in others:
        size = sum(deal.hands[s])
        deal.hands[s] = [0] * len(deal.hands[s])
        for _ in range(size):
            deal.hands[s][pool.pop()] += 1
    live = [t if t.is_bonus else pool.pop() for t in live]
    dead = [t if t.is_bonus else pool.pop() for t in dead]
    assert not pool
    deal.wall = Wall(live, dead)


@pytest.mark.parametrize("seed", range(5))
def test_shaped_rewards_add_the_shanten_gained_over_the_hand(seed):
    shaping = 0.5
    chosen: list[int] = []
    rng = random.Random(seed)

    def record(agent, mask):
        chosen.append(int(rng.choice(np.flatnonzero(mask))))
        return chosen[-1]

    plain = env()
    plain.reset(seed=seed)
    start = [shanten(h[:NUM_PLAYING_KINDS]) for h in plain.unwrapped.game.deal.hands]
    unshaped = _play(plain, record)
    end = [shanten(h[:NUM_PLAYING_KINDS]) for h in plain.unwrapped.game.deal.hands]
    replay = iter(chosen)
    shaped = env(shaped=True, shaping=shaping)
    shaped.reset(seed=seed)
    with_shaping = _play(shaped, lambda agent, mask: next(replay))
    for s in range(4):
        agent = f"seat_{s}"
        assert with_shaping[agent] == pytest.approx(unshaped[agent] + shaping * (start[s] - end[s]))


def test_episode_of_several_hands_pays_each_hand_and_readies_by_itself():
    e = env(hands=3)
    e.reset(seed=11)
    totals = _play(e, _random_choice(random.Random(3)))
    game = e.unwrapped.game
    assert game.deal_number == 3
    assert sum(totals.values()) == 0
    assert [totals[f"seat_{s}"] for s in range(4)] == [score - Rules().starting_score for score in game.scores]


def test_same_seed_same_hand():
    digests = []
    for _ in range(2):
        e = env()
        e.reset(seed=8)
        _play(e, lambda agent, mask: int(np.flatnonzero(mask)[0]))
        digests.append(e.unwrapped.game.digest())
    assert digests[0] == digests[1]


def test_masked_out_action_is_refused_and_changes_nothing():
    e = env()
    e.reset(seed=2)
    obs, *_ = e.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    version, agent = e.unwrapped.game.version, e.agent_selection
    with pytest.raises(IllegalActionError):
        e.step(illegal)
    assert (e.unwrapped.game.version, e.agent_selection) == (version, agent)
    with pytest.raises(AssertionError, match="action space"):
        e.step(NUM_ACTIONS)


def test_bad_options_are_refused():
    with pytest.raises(ValueError, match="hands"):
        raw_env(hands=0)
    with pytest.raises(ValueError, match="shaping"):
        raw_env(shaping=-1)
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="rgb_array")


def test_render_shows_no_concealed_tiles():
    e = env(render_mode="ansi")
    e.reset(seed=4)
    text = e.render()
    assert "seat_0 E: 14 concealed" in text
    own = e.unwrapped.game.deal.concealed(0)
    assert "".join(t.code for t in own) not in text


def test_import_game_needs_no_pettingzoo():
    code = (
        "import sys\n"
        "sys.modules['pettingzoo'] = sys.modules['gymnasium'] = None  # as if the extra were absent\n"
        "import game, game.seatview, game.policy\n"
        "assert 'game.rl' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def _reference_observation(seen):
    """The observation as LAYOUT describes it, written plainly part by part (no byte tricks)."""
    me = seen.seat
    parts = {name: np.zeros(length, dtype=np.float32) for name, length, _ in LAYOUT}

    def block(seat, size=NUM_PLAYING_KINDS):
        return slice((seat - me) % 4 * size, ((seat - me) % 4 + 1) * size)

    parts["hand"][:] = seen.hand
    if seen.drawn is not None:
        parts["drawn"][seen.drawn] = 1
    for seat in range(4):
        for meld in seen.melds[seat]:
            for t in meld.tiles:
                parts["melds"][block(seat)][t] += 1
        for t in seen.bonus[seat]:
            parts["bonus"][block(seat, 8)][t - NUM_PLAYING_KINDS] = 1
        parts["concealed_counts"][(seat - me) % 4] = seen.tile_counts[seat]
    for d in seen.discards:
        parts["discards"][block(d.seat)][d.tile] += 1
    parts["unseen"][:] = seen.unseen
    winds = [Tile.EAST, Tile.SOUTH, Tile.WEST, Tile.NORTH]
    parts["seat_wind"][winds.index(seen.winds[me])] = 1
    parts["round_wind"][winds.index(seen.round_wind)] = 1
    parts["dealer"][(seen.dealer - me) % 4] = 1
    parts["wall"][:] = (seen.wall_live, seen.wall_dead)
    if seen.turn is not None:
        parts["phase"][["turn", "claim", "rob"].index(seen.turn)] = 1
    if seen.offered is not None:
        parts["offered"][seen.offered] = 1
    if seen.offered_by is not None:
        parts["offered_by"][(seen.offered_by - me) % 4] = 1
    return np.concatenate([parts[name] for name, _, _ in LAYOUT])


def test_observation_is_the_layout_of_the_seat_view_and_the_mask_its_legal_actions():
    e = raw_env(hands=2)
    rng = random.Random(12)
    checked = 0
    for seed in range(4):
        e.reset(seed=seed)
        while e.agents and not e.terminations[e.agent_selection]:
            for agent in e.possible_agents:  # every seat, not only the one to act
                seat = e.agent_name_mapping[agent]
                seen = SeatView.of(e.game, seat)
                obs = e.observe(agent)
                assert obs["observation"].dtype == np.float32 and obs["observation"].shape == (OBSERVATION_SIZE,)
                np.testing.assert_array_equal(obs["observation"], _reference_observation(seen))
                legal = {action_index(a) for a in seen.legal} - {action_index(Action(ActionType.READY))}
                assert set(np.flatnonzero(obs["action_mask"])) == legal
                checked += 1
            e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    assert checked > 1000


def test_last_needs_a_reset_and_answers_as_the_environment_itself():
    e = env()
    with pytest.raises(AttributeError, match="before reset"):
        e.last()
    e.reset(seed=6)
    for _ in range(30):
        obs, reward, terminated, truncated, info = e.last()
        raw = e.unwrapped.last()
        np.testing.assert_array_equal(obs["observation"], raw[0]["observation"])
        np.testing.assert_array_equal(obs["action_mask"], raw[0]["action_mask"])
        assert (reward, terminated, truncated, info) == raw[1:]
        e.step(int(np.flatnonzero(obs["action_mask"])[-1]))
