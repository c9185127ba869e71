import { parse, type Expression, type Node, type Pattern, type PrivateIdentifier, type Super } from "acorn";

/**
 * GitBook's conditions (adaptive content): JavaScript expressions over `visitor.claims.*`,
 * `visitor.claims.unsigned.*`, `space.vars.*` and `page.vars.*`, set on site sections, site-spaces,
 * external links, pages and blocks. They decide what a visitor sees, so they are parsed with acorn
 * and evaluated here over a whitelisted subset, never with `eval` or `Function`: literals, member
 * access to own properties only, comparisons, arithmetic, logical and conditional operators, array
 * literals, `includes`/`startsWith`/`endsWith`/`toLowerCase`/`toUpperCase`/`trim` and
 * `some`/`every` with a one-parameter arrow function. An empty condition is true; a condition that
 * fails to evaluate is false (GitBook's rules).
 */

/** GitBook's `Expression`: at most 1024 characters. */
export const MAX_CONDITION_LENGTH = 1024;
/** Nesting of the syntax tree; deeper expressions are refused when written. */
export const MAX_CONDITION_DEPTH = 32;
/** Evaluation steps (nodes visited) before an evaluation gives up as false (`some` over long claims). */
const MAX_EVALUATION_STEPS = 10_000;

/** The names a condition starts from. */
export const CONDITION_ROOTS = ["visitor", "space", "page"] as const;
/** Names a condition may use besides the roots and its arrow functions' parameters. */
const CONSTANTS = new Map<string, undefined>([["undefined", undefined]]);

/** Property names that lead to prototypes or functions: refused when written, unreachable when evaluated. */
const FORBIDDEN_PROPERTIES = new Set(["__proto__", "prototype", "constructor", "__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__"]);

const STRING_METHODS = new Set(["includes", "startsWith", "endsWith", "toLowerCase", "toUpperCase", "trim"]);
const ARRAY_METHODS = new Set(["includes", "some", "every"]);
const METHODS = new Set([...STRING_METHODS, ...ARRAY_METHODS]);
const BINARY_OPERATORS = new Set(["==", "!=", "===", "!==", "<", "<=", ">", ">=", "+", "-", "*", "/", "%"]);
const UNARY_OPERATORS = new Set(["!", "-", "+"]);

/** A JSON value, as claims and variables are. */
export type ConditionValue = string | number | boolean | null | undefined | ConditionValue[] | { [key: string]: ConditionValue };

/** What a condition reads: the visitor's claims (signed, and `unsigned` inside them) and the variables. */
export interface ConditionContext {
  visitor?: { claims?: Record<string, ConditionValue> };
  space?: { vars?: Record<string, ConditionValue> };
  page?: { vars?: Record<string, ConditionValue> };
}

/** Why a condition cannot be stored, and where (a 0-based character offset). */
export class ConditionSyntaxError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(`${message} (at character ${position + 1})`);
    this.name = "ConditionSyntaxError";
  }
}

/** A condition that parsed and passed the whitelist: evaluate it as often as needed. */
export interface CompiledCondition {
  readonly source: string;
  /** Null for the empty condition, which is always true. */
  readonly expression: Expression | null;
}

/**
 * Parses and checks a condition. Throws `ConditionSyntaxError` naming the position of the first
 * problem: a syntax error, a construct outside the subset, a name other than the roots (or an arrow
 * function's parameter), a forbidden property, too long or too deeply nested.
 */
export function compileCondition(source: string): CompiledCondition {
  if (source.length > MAX_CONDITION_LENGTH) throw new ConditionSyntaxError(`must be at most ${MAX_CONDITION_LENGTH} characters`, MAX_CONDITION_LENGTH);
  if (source.trim() === "") return { source, expression: null };
  let program;
  try {
    program = parse(source, { ecmaVersion: 2022, sourceType: "script" });
  } catch (error) {
    const position = typeof (error as { pos?: unknown }).pos === "number" ? (error as { pos: number }).pos : 0;
    throw new ConditionSyntaxError(String((error as Error).message).replace(/\s*\(\d+:\d+\)$/, ""), position);
  }
  const [statement, second] = program.body;
  if (second) throw new ConditionSyntaxError("must be a single expression", second.start);
  if (statement?.type !== "ExpressionStatement") throw new ConditionSyntaxError("must be an expression", statement?.start ?? 0);
  const expression = statement.expression;
  checkNode(expression, new Set(), 1);
  return { source, expression };
}

/** Whether a condition can be stored; the syntax error otherwise. */
export function checkCondition(source: string): ConditionSyntaxError | null {
  try {
    compileCondition(source);
    return null;
  } catch (error) {
    if (error instanceof ConditionSyntaxError) return error;
    throw error;
  }
}

/**
 * Evaluates a condition for a visitor: true when empty, the expression's truthiness otherwise, and
 * false when it does not parse or fails to evaluate (a missing claim read further, a method on the
 * wrong type, the step budget spent). Never throws.
 */
export function evaluateCondition(condition: string | CompiledCondition, context: ConditionContext): boolean {
  let compiled: CompiledCondition;
  try {
    compiled = typeof condition === "string" ? compileCondition(condition) : condition;
  } catch {
    return false;
  }
  if (compiled.expression === null) return true;
  try {
    const scope = new Map<string, ConditionValue>([
      ["visitor", { claims: ownRecord(context.visitor?.claims) }],
      ["space", { vars: ownRecord(context.space?.vars) }],
      ["page", { vars: ownRecord(context.page?.vars) }],
    ]);
    return truthy(evaluate(compiled.expression, scope, { steps: 0 }));
  } catch {
    return false;
  }
}

/** Several conditions apply to one thing (a section and its group): all must hold. */
export function evaluateConditions(conditions: readonly (string | CompiledCondition | null | undefined)[], context: ConditionContext): boolean {
  return conditions.every((condition) => condition === null || condition === undefined || evaluateCondition(condition, context));
}

// --- Checking: the whitelist, applied once when a condition is written or compiled ----------------

function refuse(node: Node, what: string): never {
  throw new ConditionSyntaxError(what, node.start);
}

function checkNode(node: Expression | Pattern | PrivateIdentifier | Super, parameters: ReadonlySet<string>, depth: number): void {
  if (depth > MAX_CONDITION_DEPTH) refuse(node, `is nested more than ${MAX_CONDITION_DEPTH} levels deep`);
  const next = depth + 1;
  switch (node.type) {
    case "Literal":
      if ("regex" in node && node.regex) refuse(node, "regular expressions are not supported");
      if (typeof node.value === "bigint") refuse(node, "BigInt literals are not supported");
      return;
    case "Identifier":
      if (!(CONDITION_ROOTS as readonly string[]).includes(node.name) && !CONSTANTS.has(node.name) && !parameters.has(node.name)) {
        refuse(node, `unknown name "${node.name}": conditions read visitor.claims, space.vars and page.vars`);
      }
      return;
    case "TemplateLiteral":
      for (const expression of node.expressions) checkNode(expression, parameters, next);
      return;
    case "ArrayExpression":
      for (const element of node.elements) {
        if (element === null || element.type === "SpreadElement") refuse(node, "array holes and spreads are not supported");
        checkNode(element, parameters, next);
      }
      return;
    case "UnaryExpression":
      if (!UNARY_OPERATORS.has(node.operator)) refuse(node, `operator "${node.operator}" is not supported`);
      checkNode(node.argument, parameters, next);
      return;
    case "BinaryExpression":
      if (!BINARY_OPERATORS.has(node.operator)) refuse(node, `operator "${node.operator}" is not supported`);
      checkNode(node.left, parameters, next);
      checkNode(node.right, parameters, next);
      return;
    case "LogicalExpression":
      checkNode(node.left, parameters, next);
      checkNode(node.right, parameters, next);
      return;
    case "ConditionalExpression":
      checkNode(node.test, parameters, next);
      checkNode(node.consequent, parameters, next);
      checkNode(node.alternate, parameters, next);
      return;
    case "ChainExpression":
      checkNode(node.expression, parameters, next);
      return;
    case "MemberExpression":
      checkNode(node.object, parameters, next);
      if (node.computed) {
        checkNode(node.property, parameters, next);
        if (node.property.type === "Literal" && FORBIDDEN_PROPERTIES.has(String(node.property.value)))
          refuse(node.property, `property "${String(node.property.value)}" is not allowed`);
      } else if (node.property.type === "Identifier") {
        if (FORBIDDEN_PROPERTIES.has(node.property.name)) refuse(node.property, `property "${node.property.name}" is not allowed`);
      } else {
        refuse(node.property, "private names are not supported");
      }
      return;
    case "CallExpression": {
      const callee = node.callee;
      if (callee.type !== "MemberExpression" || callee.computed || callee.property.type !== "Identifier" || !METHODS.has(callee.property.name)) {
        refuse(node, `only these methods can be called: ${[...METHODS].join(", ")}`);
      }
      checkNode(callee.object, parameters, next);
      const method = callee.property.name;
      if (method === "some" || method === "every") {
        const [callback, ...others] = node.arguments;
        if (others.length > 0 || !callback || callback.type !== "ArrowFunctionExpression")
          refuse(node, `${method} takes one arrow function, e.g. x => x === "a"`);
        if (callback.async || callback.params.length !== 1 || callback.params[0]!.type !== "Identifier" || !callback.expression) {
          refuse(callback, `${method} takes an arrow function of one parameter returning an expression`);
        }
        const parameter = (callback.params[0] as { name: string }).name;
        if ((CONDITION_ROOTS as readonly string[]).includes(parameter) || CONSTANTS.has(parameter))
          refuse(callback.params[0]!, `parameter "${parameter}" would hide a condition root`);
        checkNode(callback.body as Expression, new Set([...parameters, parameter]), next);
        return;
      }
      for (const argument of node.arguments) {
        if (argument.type === "SpreadElement") refuse(argument, "spread arguments are not supported");
        checkNode(argument, parameters, next);
      }
      return;
    }
    default:
      refuse(node, `${describe(node.type)} is not supported in a condition`);
  }
}

function describe(type: string): string {
  return type.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
}

// --- Evaluation over JSON values ----------------------------------------------------------------

/** A plain copy holding only own enumerable properties, so nothing reads through to a prototype. */
function ownRecord(value: Record<string, ConditionValue> | undefined): Record<string, ConditionValue> {
  const record: Record<string, ConditionValue> = Object.create(null) as Record<string, ConditionValue>;
  if (value && typeof value === "object") for (const key of Object.keys(value)) record[key] = value[key];
  return record;
}

class EvaluationError extends Error {}

const isPrimitive = (value: unknown): value is string | number | boolean | null | undefined =>
  value === null || value === undefined || typeof value === "string" || typeof value === "number" || typeof value === "boolean";

function truthy(value: ConditionValue): boolean {
  return isPrimitive(value) ? Boolean(value) : true;
}

function evaluate(node: Expression, scope: ReadonlyMap<string, ConditionValue>, budget: { steps: number }): ConditionValue {
  budget.steps += 1;
  if (budget.steps > MAX_EVALUATION_STEPS) throw new EvaluationError("too many steps");
  switch (node.type) {
    case "Literal":
      return node.value as string | number | boolean | null;
    case "Identifier":
      if (scope.has(node.name)) return scope.get(node.name);
      if (CONSTANTS.has(node.name)) return CONSTANTS.get(node.name);
      throw new EvaluationError(`unknown name ${node.name}`);
    case "TemplateLiteral": {
      let text = node.quasis[0]!.value.cooked ?? "";
      node.expressions.forEach((expression, index) => {
        text += stringOf(evaluate(expression, scope, budget)) + (node.quasis[index + 1]!.value.cooked ?? "");
      });
      return text;
    }
    case "ArrayExpression":
      return node.elements.map((element) => evaluate(element as Expression, scope, budget));
    case "UnaryExpression": {
      const value = evaluate(node.argument, scope, budget);
      if (node.operator === "!") return !truthy(value);
      const number = numberOf(value);
      return node.operator === "-" ? -number : number;
    }
    case "BinaryExpression":
      return binary(node.operator, evaluate(node.left as Expression, scope, budget), evaluate(node.right, scope, budget));
    case "LogicalExpression": {
      const left = evaluate(node.left, scope, budget);
      if (node.operator === "&&") return truthy(left) ? evaluate(node.right, scope, budget) : left;
      if (node.operator === "||") return truthy(left) ? left : evaluate(node.right, scope, budget);
      return left === null || left === undefined ? evaluate(node.right, scope, budget) : left;
    }
    case "ConditionalExpression":
      return truthy(evaluate(node.test, scope, budget)) ? evaluate(node.consequent, scope, budget) : evaluate(node.alternate, scope, budget);
    case "ChainExpression":
      try {
        return evaluate(node.expression, scope, budget);
      } catch (error) {
        if (error instanceof ShortCircuit) return undefined;
        throw error;
      }
    case "MemberExpression": {
      const object = evaluate(node.object as Expression, scope, budget);
      if (object === null || object === undefined) {
        if (node.optional) throw new ShortCircuit();
        throw new EvaluationError("property of null or undefined");
      }
      const key = node.computed ? evaluate(node.property as Expression, scope, budget) : (node.property as { name: string }).name;
      return property(object, key);
    }
    case "CallExpression":
      return call(node, scope, budget);
    default:
      throw new EvaluationError(`unsupported ${node.type}`);
  }
}

/** `a?.b.c` when `a` is nullish: the whole chain is undefined. */
class ShortCircuit extends Error {}

function property(object: ConditionValue, key: ConditionValue): ConditionValue {
  if (typeof key !== "string" && typeof key !== "number") throw new EvaluationError("property key must be a string or number");
  const name = String(key);
  if (FORBIDDEN_PROPERTIES.has(name)) throw new EvaluationError(`property ${name} is not allowed`);
  if (typeof object === "string") {
    if (name === "length") return object.length;
    return /^\d+$/.test(name) ? object[Number(name)] : undefined;
  }
  if (Array.isArray(object)) {
    if (name === "length") return object.length;
    return /^\d+$/.test(name) ? object[Number(name)] : undefined;
  }
  if (object !== null && typeof object === "object") return Object.hasOwn(object, name) ? object[name] : undefined;
  return undefined;
}

function call(node: Extract<Expression, { type: "CallExpression" }>, scope: ReadonlyMap<string, ConditionValue>, budget: { steps: number }): ConditionValue {
  const callee = node.callee as Extract<Expression, { type: "MemberExpression" }>;
  const receiver = evaluate(callee.object as Expression, scope, budget);
  if (receiver === null || receiver === undefined) {
    if (callee.optional || node.optional) throw new ShortCircuit();
    throw new EvaluationError("method of null or undefined");
  }
  const method = (callee.property as { name: string }).name;
  if (typeof receiver === "string" && STRING_METHODS.has(method)) {
    const argument = node.arguments[0] ? evaluate(node.arguments[0] as Expression, scope, budget) : undefined;
    switch (method) {
      case "toLowerCase":
        return receiver.toLowerCase();
      case "toUpperCase":
        return receiver.toUpperCase();
      case "trim":
        return receiver.trim();
      default:
        if (typeof argument !== "string") throw new EvaluationError(`${method} needs a string`);
        return method === "includes" ? receiver.includes(argument) : method === "startsWith" ? receiver.startsWith(argument) : receiver.endsWith(argument);
    }
  }
  if (Array.isArray(receiver) && ARRAY_METHODS.has(method)) {
    if (method === "includes") {
      const argument = node.arguments[0] ? evaluate(node.arguments[0] as Expression, scope, budget) : undefined;
      return receiver.some((item) => sameValueZero(item, argument));
    }
    const callback = node.arguments[0] as Extract<Expression, { type: "ArrowFunctionExpression" }>;
    const parameter = (callback.params[0] as { name: string }).name;
    const test = (item: ConditionValue) => truthy(evaluate(callback.body as Expression, new Map([...scope, [parameter, item]]), budget));
    return method === "some" ? receiver.some(test) : receiver.every(test);
  }
  throw new EvaluationError(`${method} is not a method of ${Array.isArray(receiver) ? "an array" : typeof receiver}`);
}

function sameValueZero(left: ConditionValue, right: ConditionValue): boolean {
  return left === right || (typeof left === "number" && typeof right === "number" && Number.isNaN(left) && Number.isNaN(right));
}

function numberOf(value: ConditionValue): number {
  if (isPrimitive(value)) return Number(value);
  throw new EvaluationError("arithmetic on an object or array");
}

function stringOf(value: ConditionValue): string {
  if (isPrimitive(value)) return String(value);
  throw new EvaluationError("an object or array in a template");
}

function binary(operator: string, left: ConditionValue, right: ConditionValue): ConditionValue {
  switch (operator) {
    case "===":
      return left === right;
    case "!==":
      return left !== right;
    case "==":
      return looseEquals(left, right);
    case "!=":
      return !looseEquals(left, right);
  }
  // Ordering and arithmetic are defined on primitives only: objects would call their own methods.
  if (!isPrimitive(left) || !isPrimitive(right)) throw new EvaluationError(`${operator} on an object or array`);
  switch (operator) {
    case "<":
      return (left as number) < (right as number);
    case "<=":
      return (left as number) <= (right as number);
    case ">":
      return (left as number) > (right as number);
    case ">=":
      return (left as number) >= (right as number);
    case "+":
      return typeof left === "string" || typeof right === "string" ? String(left) + String(right) : Number(left) + Number(right);
    case "-":
      return Number(left) - Number(right);
    case "*":
      return Number(left) * Number(right);
    case "/":
      return Number(left) / Number(right);
    case "%":
      return Number(left) % Number(right);
    default:
      throw new EvaluationError(`operator ${operator}`);
  }
}

/** JavaScript's `==` between primitives; objects and arrays only equal themselves (no conversion). */
function looseEquals(left: ConditionValue, right: ConditionValue): boolean {
  if (isPrimitive(left) && isPrimitive(right)) return left == right;
  return left === right;
}

/** A document's or a block's child nodes, each either a block or inline content (the shape documents share). */
interface ConditionalNode {
  object?: unknown;
  type?: unknown;
  data?: unknown;
  nodes?: unknown;
  fragments?: unknown;
}

/**
 * The document as one visitor sees it: each conditional block (`if`, GitBook's adaptive content at
 * block level) replaced by its blocks when its `data.expression` is true for `context`, removed
 * when it is not (or does not evaluate), at any depth. What is left holds no `if` block, so every
 * output made from it (HTML, markdown, text) shows the visitor only what they may see.
 */
export function withConditionsApplied<T extends { nodes: readonly unknown[] }>(document: T, context: ConditionContext): T {
  const apply = (nodes: readonly unknown[]): unknown[] =>
    nodes.flatMap((node) => {
      if (!node || typeof node !== "object") return [node];
      const record = node as ConditionalNode;
      if (record.object === "block" && record.type === "if") {
        const expression = (record.data as { expression?: unknown } | undefined)?.expression;
        if (typeof expression !== "string" || !evaluateCondition(expression, context)) return [];
        return Array.isArray(record.nodes) ? apply(record.nodes) : [];
      }
      const nodesChanged = Array.isArray(record.nodes) ? { nodes: apply(record.nodes) } : {};
      const fragmentsChanged = Array.isArray(record.fragments) ? { fragments: apply(record.fragments) } : {};
      return [{ ...record, ...nodesChanged, ...fragmentsChanged }];
    });
  return { ...document, nodes: apply(Array.isArray(document.nodes) ? document.nodes : []) };
}

/** Whether the document holds a conditional (`if`) block anywhere: only then does what it shows depend on the visitor. */
export function hasConditionalBlocks(document: { nodes?: unknown }): boolean {
  const walk = (nodes: unknown): boolean =>
    Array.isArray(nodes) &&
    nodes.some((node) => {
      if (!node || typeof node !== "object") return false;
      const record = node as ConditionalNode;
      return (record.object === "block" && record.type === "if") || walk(record.nodes) || walk(record.fragments);
    });
  return walk(document.nodes);
}
