import { describe, expect, it } from "vitest";
import { checkCondition, evaluateCondition } from "@imprint/document";
import { templateConditions, validateAdaptiveSchema } from "../src/domain/adaptive-schema.js";

const schema = {
  type: "object",
  properties: {
    "beta-tester": { type: "boolean", description: "Beta testers" },
    region: { type: "string", enum: ["eu", 'us "east"'], description: "Region" },
    team: {
      type: "object",
      description: "Team",
      properties: { lead: { type: "boolean", description: "Team leads" } },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};

describe("adaptive schema", () => {
  it("derives conditions the reader's evaluator accepts and that select the visitors they describe", () => {
    const conditions = templateConditions(validateAdaptiveSchema(schema));
    expect(conditions).toEqual([
      { description: "Beta testers", condition: 'visitor.claims["beta-tester"] === true' },
      { description: "Region: eu", condition: 'visitor.claims.region === "eu"' },
      { description: 'Region: us "east"', condition: 'visitor.claims.region === "us \\"east\\""' },
      { description: "Team leads", condition: "visitor.claims.team.lead === true" },
    ]);
    for (const { condition } of conditions) expect(checkCondition(condition), condition).toBeNull();
    const visitor = { visitor: { claims: { "beta-tester": true, region: 'us "east"', team: { lead: false } } } };
    expect(conditions.map(({ condition }) => evaluateCondition(condition, visitor))).toEqual([true, false, true, false]);
  });

  it("names the JSON path of the first problem, however deep", () => {
    const deep = structuredClone(schema) as { properties: { team: { properties: Record<string, unknown> } } };
    deep.properties.team.properties.lead = { type: "boolean" };
    expect(() => validateAdaptiveSchema(deep)).toThrow("jsonSchema.properties.team.properties.lead.description: must be a non-empty string");
    // JSON.parse makes "__proto__" an own key, as a request body does.
    expect(() =>
      validateAdaptiveSchema(JSON.parse('{"type":"object","additionalProperties":false,"properties":{"__proto__":{"type":"boolean","description":"x"}}}')),
    ).toThrow("jsonSchema.properties.__proto__: is not a usable claim name");
    let nested: Record<string, unknown> = { type: "boolean", description: "leaf" };
    for (let level = 0; level < 9; level++) nested = { type: "object", description: "level", properties: { inner: nested }, additionalProperties: false };
    expect(() => validateAdaptiveSchema({ type: "object", additionalProperties: false, properties: { outer: nested } })).toThrow(/nest at most 8 levels/);
  });
});
