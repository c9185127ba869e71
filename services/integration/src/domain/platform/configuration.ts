import { AppError } from "@imprint/runtime";
import { firstProblem, validatorOf } from "./schemas.js";
import type { ConfigurationTarget, PlainObject } from "./types.js";

/**
 * What an integration declares it needs configured, per place it is installed (GitBook's
 * IntegrationConfigurations: `account`, `space`, `site`), and the check of an installation's
 * configuration against it. A declaration is either a schema (GitBook's
 * IntegrationConfigurationSchema: typed properties the installer fills in) or a ContentKit
 * component (`componentId`) the integration renders to collect whatever it stores.
 */

interface PropertyText {
  title?: string;
  description?: string;
}

export type ConfigurationProperty = PropertyText &
  (
    | { type: "string"; default?: string; enum?: string[]; completion_url?: string }
    | { type: "number"; default?: number }
    | { type: "boolean"; default?: boolean }
    /** A button whose callback (an OAuth flow, typically) stores the value itself, any JSON. */
    | { type: "button"; callback_url: string; button_text: string }
  );

export interface ConfigurationSchema {
  properties: Record<string, ConfigurationProperty>;
  required?: string[];
}

export interface ConfigurationComponent {
  componentId: string;
}

export type DeclaredConfiguration = ConfigurationSchema | ConfigurationComponent;

export type DeclaredConfigurations = Partial<Record<ConfigurationTarget, DeclaredConfiguration>>;

/** Bounds of a declaration beyond GitBook's schema: a form, not a database. */
export const CONFIGURATION_MAX_PROPERTIES = 100;
export const CONFIGURATION_PROPERTY_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** Bound of one installation's configuration, as JSON text (OAuth credentials included). */
export const CONFIGURATION_MAX_BYTES = 64 * 1024;

const TARGETS: readonly ConfigurationTarget[] = ["account", "space", "site"];

const validate = {
  all: validatorOf("IntegrationConfigurations"),
  schema: validatorOf("IntegrationConfigurationSchema"),
  component: validatorOf("IntegrationConfigurationComponent"),
};

const isObject = (value: unknown): value is PlainObject => !!value && typeof value === "object" && !Array.isArray(value);

const isComponent = (declaration: DeclaredConfiguration): declaration is ConfigurationComponent => "componentId" in declaration;

/** GitBook's schema, explained against the shape each target's declaration meant (a component names `componentId`). */
function checkAgainstGitBook(value: PlainObject): void {
  if (validate.all(value)) return;
  for (const target of TARGETS) {
    const declaration = value[target];
    if (declaration === undefined) continue;
    if (isObject(declaration) && "componentId" in declaration && "properties" in declaration) {
      throw AppError.invalidArgument(`configurations.${target}: must declare either properties or a componentId, not both`);
    }
    const meant = isObject(declaration) && "componentId" in declaration ? validate.component : validate.schema;
    if (!meant(declaration)) throw AppError.invalidArgument(firstProblem(meant.errors, `configurations.${target}`, `configurations.${target}`));
  }
  throw AppError.invalidArgument(firstProblem(validate.all.errors, "configurations", "configurations"));
}

function checkLimits(target: ConfigurationTarget, schema: ConfigurationSchema): void {
  const at = `configurations.${target}`;
  const names = Object.keys(schema.properties);
  if (names.length > CONFIGURATION_MAX_PROPERTIES)
    throw AppError.invalidArgument(`${at}.properties: must declare at most ${CONFIGURATION_MAX_PROPERTIES} properties`);
  for (const name of names) {
    if (!CONFIGURATION_PROPERTY_NAME.test(name))
      throw AppError.invalidArgument(`${at}.properties: ${JSON.stringify(name)} must be 1 to 64 letters, digits, "_" or "-"`);
    const property = schema.properties[name]!;
    if (property.type === "string" && property.enum && property.default !== undefined && !property.enum.includes(property.default)) {
      throw AppError.invalidArgument(`${at}.properties.${name}.default: must be one of its enum`);
    }
  }
  for (const [index, name] of (schema.required ?? []).entries()) {
    if (!Object.hasOwn(schema.properties, name)) throw AppError.invalidArgument(`${at}.required[${index}]: ${JSON.stringify(name)} is not a declared property`);
  }
}

/**
 * A published `configurations` declaration, checked against GitBook's schema and Imprint's limits
 * (names, count, required names declared); a target GitBook does not know is refused rather than
 * kept unused.
 */
export function checkDeclaredConfigurations(value: unknown): DeclaredConfigurations {
  if (!isObject(value)) throw AppError.invalidArgument("configurations: must be an object");
  for (const key of Object.keys(value)) {
    if (!(TARGETS as readonly string[]).includes(key))
      throw AppError.invalidArgument(`configurations.${key}: is not a configuration target (account, space or site)`);
  }
  checkAgainstGitBook(value);
  const declarations = value as DeclaredConfigurations;
  for (const target of TARGETS) {
    const declaration = declarations[target];
    if (declaration && !isComponent(declaration)) checkLimits(target, declaration);
  }
  return declarations;
}

/** Whether `value` is what a property of this type holds (a button's value is whatever its callback stored). */
function holds(property: ConfigurationProperty, value: unknown): boolean {
  switch (property.type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "boolean":
      return typeof value === "boolean";
    case "button":
      return true;
  }
}

export interface ConfigurationCheckOptions {
  /**
   * Accept a configuration without some required properties: GitBook keeps such an installation
   * `pending` until they are set (an OAuth button's credentials arrive after the install).
   */
  allowMissingRequired?: boolean;
}

/** The required properties of a declaration's schema that a configuration (with defaults applied) lacks. */
export function missingRequiredProperties(declaration: DeclaredConfiguration | undefined, configuration: PlainObject): string[] {
  if (!declaration || isComponent(declaration)) return [];
  return (declaration.required ?? []).filter((name) => configuration[name] === undefined);
}

/**
 * An installation's configuration for `target`, checked against what the integration declares
 * there (`declaration`: its `configurations[target]`), with the declared defaults applied:
 *  - a schema: only its properties, each of its type (and within its enum), the required ones present;
 *  - a component: any JSON object, as the component stores what it collects;
 *  - nothing declared: only `{}`, since there is nothing to configure (an integration that keeps
 *    state in a configuration declares a component for it).
 */
export function checkInstallationConfiguration(
  declaration: DeclaredConfiguration | undefined,
  configuration: unknown,
  target: ConfigurationTarget,
  options: ConfigurationCheckOptions = {},
): PlainObject {
  if (!isObject(configuration)) throw AppError.invalidArgument("configuration: must be an object");
  if (Buffer.byteLength(JSON.stringify(configuration)) > CONFIGURATION_MAX_BYTES) {
    throw AppError.invalidArgument(`configuration: must be at most ${CONFIGURATION_MAX_BYTES / 1024} KiB of JSON`);
  }
  if (declaration && isComponent(declaration)) return configuration;
  const properties = declaration?.properties ?? {};
  for (const [name, value] of Object.entries(configuration)) {
    const property = Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (!property) {
      throw AppError.invalidArgument(
        `configuration.${name}: is not a declared property${declaration ? "" : ` (the integration declares no ${target} configuration)`}`,
      );
    }
    if (!holds(property, value)) throw AppError.invalidArgument(`configuration.${name}: must be a ${property.type}`);
    if (property.type === "string" && property.enum && !property.enum.includes(value as string)) {
      throw AppError.invalidArgument(`configuration.${name}: must be one of ${property.enum.map((option) => JSON.stringify(option)).join(", ")}`);
    }
  }
  const defaults = Object.fromEntries(
    Object.entries(properties).flatMap(([name, property]) => (property.type !== "button" && property.default !== undefined ? [[name, property.default]] : [])),
  );
  const result: PlainObject = { ...defaults, ...configuration };
  if (!options.allowMissingRequired) {
    const [missing] = missingRequiredProperties(declaration, result);
    if (missing !== undefined) throw AppError.invalidArgument(`configuration.${missing}: is required`);
  }
  return result;
}
