import { describe, expect, it } from "vitest";
import { parseProtoServices, protoServices, readmeProblems } from "../src/testing/readme.js";

const proto = `
syntax = "proto3";
// service Commented { rpc NotReal(A) returns (B); }
/* rpc AlsoNotReal(A) returns (B); { */
service Things {
  // Lists things; "}" in a comment closes nothing.
  rpc ListThings(ListThingsRequest) returns (ListThingsResponse);
  rpc GetThing (GetThingRequest) returns (GetThingResponse) {
    option deprecated = true;
  }
}
message ListThingsRequest { string name = 1 [json_name = "rpc Fake(X)"]; }
service Others { rpc
  Ping(PingRequest) returns (PingResponse); }
`;

describe("the README check", () => {
  it("reads services and RPCs from proto text, leaving out comments, strings and option blocks", () => {
    expect(parseProtoServices(proto, "x.proto")).toEqual([
      { name: "Things", file: "x.proto", rpcs: ["ListThings", "GetThing"] },
      { name: "Others", file: "x.proto", rpcs: ["Ping"] },
    ]);
  });

  it("finds every service of a context's proto files", () => {
    const services = protoServices("collaboration");
    expect(services.map((service) => service.name).sort()).toEqual(["ChangeRequestReviewService", "ChangeRequestService", "CommentService"]);
    expect(services.find((service) => service.name === "CommentService")?.rpcs).toContain("PostComment");
  });

  it("names what a README leaves out and what it names that does not exist", () => {
    const readme = [
      "# x",
      "## gRPC: `imprint.x.v1.Things`",
      "| RPC | what |",
      "|---|---|",
      "| `ListThings`, `RemovedThing` (what `GetMembership` says) | things |",
      "## Events",
      "| emitted | when |",
      "|---|---|",
      "| `thing.created` | `CreateThing` |",
      "| `thing.gone` | never |",
      "## Jobs",
      "- `sweep`: sweeps.",
    ].join("\n");
    const problems = readmeProblems(readme, {
      services: parseProtoServices(proto, "x.proto"),
      events: ["thing.created", "thing.updated"],
      jobs: ["sweep", "runtime-prune-processed-events"],
    });
    expect(problems).toEqual([
      'Others: service of the protos not named in "## gRPC"',
      'GetThing: RPC of the protos not named in "## gRPC"',
      'Ping: RPC of the protos not named in "## gRPC"',
      'RemovedThing: in a table of "## gRPC" but no RPC of the protos',
      'thing.updated: event the service records not named in "## Events"',
      'thing.gone: in a table of "## Events" but no event the service records',
      'runtime-prune-processed-events: job the service runs not named in "## Jobs"',
    ]);
  });

  it("asks for the sections it checks", () => {
    expect(readmeProblems("# x\n", { jobs: ["sweep"] })).toEqual(['no "## Jobs" section (it must name every job the service runs)']);
  });
});
