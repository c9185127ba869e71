import { runInNewContext } from "node:vm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  checkCondition,
  compileCondition,
  ConditionSyntaxError,
  evaluateCondition,
  evaluateConditions,
  hasConditionalBlocks,
  markdownToDocument,
  MAX_CONDITION_LENGTH,
  withConditionsApplied,
  type ConditionContext,
} from "../src/index.js";

const context: ConditionContext = {
  visitor: {
    claims: {
      role: "admin",
      email: "ada@example.com",
      plan: "enterprise",
      seats: 12,
      beta: true,
      teams: ["docs", "platform"],
      scores: [3, 9],
      address: { country: "FR", city: null },
      unsigned: { language: "fr", plan: "free" },
    },
  },
  space: { vars: { product: "Imprint", version: "2" } },
  page: { vars: { audience: "developers" } },
};

const holds = (condition: string, at: ConditionContext = context) => evaluateCondition(condition, at);

describe("evaluating conditions", () => {
  it("reads claims, unsigned claims and variables", () => {
    expect(holds('visitor.claims.role === "admin"')).toBe(true);
    expect(holds('visitor.claims.unsigned.language == "fr"')).toBe(true);
    expect(holds('space.vars.product === "Imprint" && page.vars.audience === "developers"')).toBe(true);
    expect(holds("visitor.claims.beta")).toBe(true);
    expect(holds("visitor.claims.seats >= 10 && visitor.claims.seats < 20")).toBe(true);
    expect(holds('visitor.claims.address.country === "FR"')).toBe(true);
  });

  it("supports GitBook's methods, arrow functions, optional chaining and the conditional operator", () => {
    expect(holds('visitor.claims.teams.includes("docs")')).toBe(true);
    expect(holds('["admin", "owner"].includes(visitor.claims.role)')).toBe(true);
    expect(holds('visitor.claims.email.endsWith("@example.com") && visitor.claims.email.startsWith("ada")')).toBe(true);
    expect(holds('visitor.claims.teams.some(team => team.startsWith("plat"))')).toBe(true);
    expect(holds("visitor.claims.scores.every(score => score > 5)")).toBe(false);
    expect(holds('visitor.claims.role.toUpperCase() === "ADMIN"')).toBe(true);
    expect(holds("visitor.claims.missing?.deeper.still === undefined")).toBe(true);
    expect(holds('(visitor.claims.plan === "enterprise" ? visitor.claims.seats : 0) > 10')).toBe(true);
    expect(holds('`${visitor.claims.role}-${space.vars.version}` === "admin-2"')).toBe(true);
    expect(holds("visitor.claims.teams.length === 2 && !visitor.claims.nothing")).toBe(true);
    expect(holds('visitor.claims["plan"] === "enterprise" && visitor.claims.teams[1] === "platform"')).toBe(true);
  });

  it("is true when empty and false when it does not parse or fails to evaluate", () => {
    expect(holds("")).toBe(true);
    expect(holds("   ")).toBe(true);
    expect(holds("visitor.claims.role ===")).toBe(false);
    expect(holds("visitor.claims.missing.deeper")).toBe(false);
    expect(holds("!visitor.claims.missing.deeper")).toBe(false);
    expect(holds("visitor.claims.seats.includes(1)")).toBe(false);
    expect(holds('visitor.claims.role === "admin"', {})).toBe(false);
  });

  it("never reaches a prototype, a constructor or a function", () => {
    const polluted = Object.prototype as Record<string, unknown>;
    polluted.imprintTestInherited = "reached";
    try {
      expect(holds('visitor.claims.imprintTestInherited === "reached"')).toBe(false);
      expect(holds('visitor.claims.address.imprintTestInherited === "reached"')).toBe(false);
      expect(holds('visitor.claims["__pro" + "to__"] !== undefined')).toBe(false);
      expect(holds('visitor.claims.teams["constr" + "uctor"] !== undefined')).toBe(false);
      expect(holds("visitor.claims.toString !== undefined")).toBe(false);
      expect(holds("visitor.claims.role.constructor")).toBe(false);
    } finally {
      delete polluted.imprintTestInherited;
    }
  });

  it("combines a list of conditions with AND, ignoring absent ones", () => {
    expect(evaluateConditions(['visitor.claims.role === "admin"', null, "", "visitor.claims.beta"], context)).toBe(true);
    expect(evaluateConditions(['visitor.claims.role === "admin"', "visitor.claims.seats > 100"], context)).toBe(false);
  });

  it("gives up as false when an evaluation takes too many steps", () => {
    const many = { visitor: { claims: { items: Array.from({ length: 20_000 }, (_, index) => index) } } };
    expect(holds("visitor.claims.items.every(item => item >= 0)", many)).toBe(false);
    expect(holds("visitor.claims.items.some(item => item === 3)", many)).toBe(true);
  });
});

describe("conditional blocks (if) for one visitor", () => {
  it("keeps the blocks of a true condition in its place, drops a false or broken one's, at any depth; the document is left as it was", () => {
    const document = markdownToDocument(
      [
        "{% if visitor.claims.beta %}",
        "beta",
        "{% if visitor.claims.unsigned.plan === 'pro' %}",
        "beta and pro",
        "{% endif %}",
        "{% endif %}",
        "",
        "{% if space.vars.version === '2' && page.vars.audience === 'developers' %}",
        "version 2",
        "{% endif %}",
        "",
        "{% if visitor.claims.missing.deeper %}",
        "never",
        "{% endif %}",
        "",
        "everyone",
      ].join("\n"),
    );
    const before = structuredClone(document);
    expect(hasConditionalBlocks(document)).toBe(true);
    const seen = withConditionsApplied(document, context);
    const texts = (nodes: readonly { nodes?: unknown[] }[]) => nodes.map((node) => JSON.stringify(node).match(/"text":"([^"]*)"/)?.[1]);
    expect(texts(seen.nodes)).toEqual(["beta", "version 2", "everyone"]);
    expect(hasConditionalBlocks(seen)).toBe(false);
    expect(texts(withConditionsApplied(document, { visitor: { claims: { beta: true, unsigned: { plan: "pro" } } } }).nodes)).toEqual([
      "beta",
      "beta and pro",
      "everyone",
    ]);
    expect(texts(withConditionsApplied(document, {}).nodes)).toEqual(["everyone"]);
    expect(document).toEqual(before);
    expect(hasConditionalBlocks(markdownToDocument("no conditions"))).toBe(false);
  });
});

describe("checking conditions when they are written", () => {
  const refusal = (condition: string) => {
    const error = checkCondition(condition);
    if (!error) throw new Error(`expected ${condition} to be refused`);
    return error;
  };

  it("names the position of a syntax error", () => {
    const error = refusal('visitor.claims.role === "admin" &&');
    expect(error).toBeInstanceOf(ConditionSyntaxError);
    expect(error.position).toBe(34);
    expect(error.message).toMatch(/at character 35\)$/);
    expect(refusal('visitor.claims.role "admin"').message).toMatch(/^Unexpected token \(at character 21\)$/);
  });

  it("refuses what is outside the subset, at its position", () => {
    const cases: [string, RegExp, number][] = [
      ["visitor.claims.role = 'x'", /assignment expression is not supported/, 0],
      ["process.exit(1)", /only these methods can be called/, 0],
      ["globalThis", /unknown name "globalThis"/, 0],
      ["visitor.constructor", /property "constructor" is not allowed/, 8],
      ['visitor["__proto__"]', /property "__proto__" is not allowed/, 8],
      ["visitor.claims.role.replace('a', 'b')", /only these methods can be called/, 0],
      ["new Date()", /new expression is not supported/, 0],
      ["(() => 1)()", /only these methods can be called/, 0],
      ["visitor.claims.teams.some(function (t) { return true })", /some takes one arrow function/, 0],
      ["visitor.claims.teams.some((a, b) => a)", /arrow function of one parameter/, 26],
      ["visitor.claims.teams.some(visitor => visitor)", /would hide a condition root/, 26],
      ["typeof visitor", /operator "typeof" is not supported/, 0],
      ["'a' in visitor", /operator "in" is not supported/, 0],
      ["/x/.test('x')", /only these methods can be called|regular expressions/, 0],
      ["visitor.claims.a, visitor.claims.b", /sequence expression is not supported/, 0],
      ["visitor.claims.a; visitor.claims.b", /must be a single expression/, 18],
      ["{ a: 1 }", /must be an expression/, 0],
    ];
    for (const [condition, message, position] of cases) {
      const error = refusal(condition);
      expect(error.message, condition).toMatch(message);
      expect(error.position, condition).toBe(position);
    }
  });

  it("bounds length and depth", () => {
    expect(checkCondition(`visitor.claims.a === "${"x".repeat(MAX_CONDITION_LENGTH - 24)}"`)).toBeNull();
    expect(refusal(`visitor.claims.a === "${"x".repeat(MAX_CONDITION_LENGTH)}"`).message).toMatch(/at most 1024 characters/);
    expect(refusal(`${"!".repeat(40)}visitor`).message).toMatch(/nested more than 32 levels/);
  });

  it("compiles once for many evaluations", () => {
    const compiled = compileCondition('visitor.claims.role === "admin"');
    expect(evaluateCondition(compiled, context)).toBe(true);
    expect(evaluateCondition(compiled, { visitor: { claims: { role: "reader" } } })).toBe(false);
  });
});

// --- Properties -------------------------------------------------------------------------------

/** Claims whose types the typed generators below rely on. */
const claimsArbitrary = fc.record({
  name: fc.string({ maxLength: 6 }),
  tier: fc.constantFrom("free", "pro", "enterprise"),
  count: fc.integer({ min: -5, max: 20 }),
  flag: fc.boolean(),
  tags: fc.array(fc.constantFrom("a", "b", "c", "docs"), { maxLength: 4 }),
  unsigned: fc.record({ lang: fc.constantFrom("en", "fr", "de") }),
});

const quote = (text: string) => JSON.stringify(text);
const stringLiteral = fc.string({ maxLength: 5 }).map(quote);
const { expression: booleanExpression } = fc.letrec<{ expression: string; string: string; number: string }>((tie) => ({
  string: fc.oneof(
    { depthSize: "small" },
    stringLiteral,
    fc.constantFrom("visitor.claims.name", "visitor.claims.tier", "visitor.claims.unsigned.lang", "space.vars.product"),
    fc.tuple(tie("string"), tie("string")).map(([left, right]) => `(${left} + ${right})`),
    tie("string").map((value) => `${value}.toLowerCase()`),
  ),
  number: fc.oneof(
    { depthSize: "small" },
    fc.integer({ min: -10, max: 30 }).map(String),
    fc.constantFrom("visitor.claims.count", "visitor.claims.tags.length"),
    fc.tuple(tie("number"), fc.constantFrom("+", "-", "*"), tie("number")).map(([left, operator, right]) => `(${left} ${operator} ${right})`),
  ),
  expression: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom("true", "false", "visitor.claims.flag"),
    fc.tuple(tie("string"), fc.constantFrom("===", "!==", "==", "<"), tie("string")).map(([left, operator, right]) => `(${left} ${operator} ${right})`),
    fc
      .tuple(tie("number"), fc.constantFrom("===", "!=", "<", "<=", ">", ">="), tie("number"))
      .map(([left, operator, right]) => `(${left} ${operator} ${right})`),
    fc.tuple(tie("expression"), fc.constantFrom("&&", "||"), tie("expression")).map(([left, operator, right]) => `(${left} ${operator} ${right})`),
    tie("expression").map((value) => `!${value}`),
    fc.tuple(tie("expression"), tie("expression"), tie("expression")).map(([test, yes, no]) => `(${test} ? ${yes} : ${no})`),
    fc
      .tuple(tie("string"), fc.constantFrom("includes", "startsWith", "endsWith"), tie("string"))
      .map(([value, method, argument]) => `${value}.${method}(${argument})`),
    stringLiteral.map((tag) => `visitor.claims.tags.includes(${tag})`),
    fc
      .tuple(fc.constantFrom("some", "every"), stringLiteral)
      .map(([method, tag]) => `visitor.claims.tags.${method}(t => t === ${tag} || t.startsWith(${tag}))`),
  ),
}));

/** JavaScript's own evaluation of the same text: the reference on the safe subset (test only). */
function reference(condition: string, claims: unknown): boolean {
  try {
    return Boolean(runInNewContext(condition, { visitor: { claims }, space: { vars: { product: "Imprint" } }, page: { vars: {} } }, { timeout: 1_000 }));
  } catch {
    return false;
  }
}

describe("condition properties", () => {
  it("agree with JavaScript's evaluation on the safe subset", () => {
    fc.assert(
      fc.property(booleanExpression, claimsArbitrary, (condition, claims) => {
        if (condition.length > MAX_CONDITION_LENGTH) return;
        let compiled;
        try {
          compiled = compileCondition(condition);
        } catch (error) {
          // Only depth can refuse a generated expression.
          expect((error as Error).message).toMatch(/nested more than/);
          return;
        }
        expect(evaluateCondition(compiled, { visitor: { claims }, space: { vars: { product: "Imprint" } } })).toBe(reference(condition, claims));
      }),
      { numRuns: 400 },
    );
  });

  it("never throw and never answer anything but a boolean, whatever the text", () => {
    const fragments = fc.constantFrom(
      "visitor",
      "claims",
      ".",
      "[",
      "]",
      "(",
      ")",
      "=>",
      "__proto__",
      "constructor",
      "prototype",
      '"',
      "'",
      "`",
      "${",
      "this",
      "new",
      "Function",
      "eval",
      "import",
      "?.",
      "&&",
      "||",
      "!",
      "===",
      "1",
      "x",
      "some",
      "every",
      "includes",
      ",",
      ";",
      "{",
      "}",
    );
    const text = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.array(fragments, { maxLength: 30 }).map((parts) => parts.join("")),
    );
    fc.assert(
      fc.property(text, claimsArbitrary, (condition, claims) => {
        const result = evaluateCondition(condition, { visitor: { claims } });
        expect(typeof result).toBe("boolean");
        const problem = checkCondition(condition);
        if (problem) expect(problem.position).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 2_000 },
    );
  });
});
