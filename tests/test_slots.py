"""The review and OCR slots (issue 26, item 7): one owner's OCR jobs cannot take every slot, waiting
owners are served in turn, and a review gives its review slot back while it waits for OCR."""

from __future__ import annotations

import asyncio

import pytest

from vent_agent.runs.slots import FairSlots, HeldSlot


async def _hold(slots: FairSlots, owner: str, started: list[str], release: asyncio.Event) -> None:
    async with slots.slot(owner):
        started.append(owner)
        await release.wait()


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_one_owner_cannot_take_every_slot() -> None:
    slots = FairSlots(total=2, per_owner=1)
    started: list[str] = []
    release = asyncio.Event()
    tasks = [asyncio.create_task(_hold(slots, o, started, release)) for o in ("a", "a", "a", "b")]
    await _settle()
    assert started == ["a", "b"] and slots.busy == 2
    assert slots.would_wait("a") and slots.would_wait("c")
    release.set()
    await asyncio.gather(*tasks)
    assert started == ["a", "b", "a", "a"] and slots.busy == 0


async def test_waiting_owners_are_served_in_turn() -> None:
    slots = FairSlots(total=1)
    order: list[str] = []
    gates = {name: asyncio.Event() for name in ("a1", "a2", "a3", "b1", "c1")}

    async def job(owner: str, name: str) -> None:
        async with slots.slot(owner):
            order.append(name)
            await gates[name].wait()

    tasks = [asyncio.create_task(job(n[0], n)) for n in ("a1", "a2", "a3", "b1", "c1")]
    await _settle()
    while len(order) < len(tasks) or not gates[order[-1]].is_set():  # the running job ends, the next starts
        gates[order[-1]].set()
        await _settle()
    await asyncio.gather(*tasks)
    # a waited first and goes first, then goes to the back: b and c before a's third
    assert order == ["a1", "a2", "b1", "c1", "a3"]


async def test_a_cancelled_waiter_leaves_no_slot_taken() -> None:
    slots = FairSlots(total=1)
    release = asyncio.Event()
    started: list[str] = []
    first = asyncio.create_task(_hold(slots, "a", started, release))
    await _settle()
    waiting = asyncio.create_task(_hold(slots, "b", started, release))
    await _settle()
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    release.set()
    await first
    assert started == ["a"] and slots.busy == 0 and not slots.would_wait("b")


async def test_a_held_slot_is_given_back_aside_and_taken_again() -> None:
    review_slots = asyncio.Semaphore(1)
    in_ocr, ocr_done = asyncio.Event(), asyncio.Event()

    async def scanned_review() -> None:
        async with HeldSlot(review_slots) as slot:
            async with slot.aside():
                in_ocr.set()
                await ocr_done.wait()
            assert slot.held

    scan = asyncio.create_task(scanned_review())
    await in_ocr.wait()
    async with HeldSlot(review_slots):  # a text-layer review gets the slot while the scan is OCR'd
        pass
    ocr_done.set()
    await scan
    assert not review_slots.locked()


async def test_a_held_slot_cancelled_while_taking_it_back_releases_nothing() -> None:
    review_slots = asyncio.Semaphore(1)
    in_ocr, ocr_done = asyncio.Event(), asyncio.Event()

    async def scanned_review() -> None:
        async with HeldSlot(review_slots) as slot, slot.aside():
            in_ocr.set()
            await ocr_done.wait()

    other = HeldSlot(review_slots)
    scan = asyncio.create_task(scanned_review())
    await in_ocr.wait()
    await other.__aenter__()  # the slot is taken meanwhile: the scan waits to take it back
    ocr_done.set()
    await _settle()
    scan.cancel()
    with pytest.raises(asyncio.CancelledError):
        await scan
    await other.__aexit__(None, None, None)
    assert not review_slots.locked() and review_slots._value == 1  # not released twice
