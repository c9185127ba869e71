/**
 * One PATCH body field's place in an update request (CODE_STYLE.md § Partial updates): the mask
 * path it names and the request fields its value sets. A null the body allows reaches `set`, which
 * turns it into the field's empty value (a named empty field clears).
 */
export type MaskedField<Value, Fields> = readonly [path: string, set: (value: Value) => Partial<Fields>];

/**
 * A REST body → an update request's fields plus the mask naming exactly the fields the client sent.
 * `empty` gives every field's value when unnamed (ignored by the service, but a proto field needs
 * one); `fields` maps every body key, so a field added to the body cannot be forgotten here.
 */
export function toMaskedUpdate<Body extends object, Fields extends object>(
  body: Body,
  empty: Fields,
  fields: { [K in keyof Body]-?: MaskedField<Exclude<Body[K], undefined>, Fields> },
): Fields & { updateMask: string[] } {
  const updateMask: string[] = [];
  let request: Fields = { ...empty };
  for (const key of Object.keys(fields) as (keyof Body)[]) {
    const value = body[key];
    if (value === undefined) continue;
    const [path, set] = fields[key];
    updateMask.push(path);
    request = { ...request, ...set(value as Exclude<Body[keyof Body], undefined>) };
  }
  return { ...request, updateMask };
}
