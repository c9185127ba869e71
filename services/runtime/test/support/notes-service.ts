import { randomUUID } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineEntity, p } from "@mikro-orm/postgresql";
import { AppError } from "../../src/errors.js";
import { defineEvent } from "../../src/events/definitions.js";
import type { EventEnvelope } from "../../src/events/envelope.js";
import { recordEvent } from "../../src/events/record-event.js";
import { runtimeDeps, type ServiceDeps, type ServiceSpec } from "../../src/service.js";
import { scalarMessage } from "./messages.js";
import { jsonMethod } from "./json-method.js";

// A tiny service for the bootstrap's tests: one table, one RPC that writes a note and its event,
// and one consumer that keeps what it received.
export const NoteSchema = defineEntity({
  name: "Note",
  tableName: "notes",
  properties: {
    id: p.uuid().primary(),
    text: p.string(),
    createdAt: p.datetime(),
  },
});
export class Note extends NoteSchema.class {}
NoteSchema.setClass(Note);

// A tiny hand-written gRPC service (JSON on the wire) whose one method is a use case that writes
// a note and its event in one transaction.
export const NotesService = {
  addNote: jsonMethod<{ text: string }, { id: string; createdAt: string }>("/test.Notes/AddNote"),
} as const;

const migrationsPath = join(dirname(fileURLToPath(import.meta.url)), "..", "service-fixtures", "migrations");
export const fixedNow = new Date("2026-03-04T05:06:07.000Z");

export function notesSpec(context: string, received: EventEnvelope[], onStarted: (deps: ServiceDeps) => Promise<void>): ServiceSpec {
  const noteAdded = defineEvent({ context, aggregate: "note", event: "added", message: scalarMessage({ text: "" }) });
  return {
    name: "notes",
    context,
    entities: [Note],
    migrationsPath,
    deps: runtimeDeps,
    grpc: ({ orm, unitOfWork, clock }) => [
      {
        name: "test.Notes",
        definition: NotesService,
        implementation: {
          addNote: async ({ text }) => {
            if (!text) throw AppError.invalidArgument("text: must not be empty");
            const note = await unitOfWork.run(orm.em.fork(), async (em) => {
              const created = em.create(Note, { id: randomUUID(), text, createdAt: clock() });
              em.persist(created);
              recordEvent(em, noteAdded, { organizationId: null, actor: null, payload: { text } });
              return created;
            });
            return { id: note.id, createdAt: note.createdAt.toISOString() };
          },
        },
      },
    ],
    consumers: () => [
      {
        context,
        consumer: `${context}-notes-log`,
        filterSubject: `imprint.${context}.v1.note.>`,
        handler: async (envelope) => {
          received.push(envelope);
        },
      },
    ],
    onStarted,
  };
}
