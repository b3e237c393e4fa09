/**
 * Order-independent set fingerprints (vault/set-mark.ts): the same members
 * in any order give the same mark, any change of membership another, and a
 * mark follows adds and removes without revisiting the set.
 */
import { describe, expect, it } from "vitest";
import { SetMark, setMark } from "../extensions/llm-wiki/lib/vault/set-mark.ts";

const MEMBERS = Array.from({ length: 500 }, (_, i) => `concepts/page-${i}\u0000hash-${i * 7}`);

describe("setMark", () => {
  it("is the same for the same members in any order", () => {
    expect(setMark([...MEMBERS].reverse())).toBe(setMark(MEMBERS));
    expect(setMark(MEMBERS)).toMatch(/^500-[0-9a-f]+-[0-9a-f]+$/);
  });

  it("differs when one member is added, removed or changed by one character", () => {
    const base = setMark(MEMBERS);
    expect(setMark([...MEMBERS, "x"])).not.toBe(base);
    expect(setMark(MEMBERS.slice(1))).not.toBe(base);
    const changed = [...MEMBERS];
    changed[42] = `${changed[42]}!`;
    expect(setMark(changed)).not.toBe(base);
    expect(setMark([])).toBe("0-0-0");
  });

  it("follows adds and removes from a mark made earlier", () => {
    const acc = SetMark.from(setMark(MEMBERS));
    acc.remove(MEMBERS[3] as string);
    acc.add("new member");
    expect(acc.mark()).toBe(setMark([...MEMBERS.filter((_, i) => i !== 3), "new member"]));
    expect(SetMark.from("not a mark").mark()).toBe("0-0-0");
  });
});
