import { defineEntity, p } from "@mikro-orm/postgresql";

/**
 * A background job's lease: which replica runs the job (`holder`) and until when, unless it renews
 * the lease first. A replica that stops hands its leases back; one that crashed stops renewing
 * and its lease runs out, then another replica takes the job over.
 */
export const JobLeaseSchema = defineEntity({
  name: "JobLease",
  tableName: "job_leases",
  properties: {
    name: p.string().length(128).primary(),
    holder: p.string().length(255),
    expiresAt: p.datetime(),
  },
});
export class JobLease extends JobLeaseSchema.class {}
JobLeaseSchema.setClass(JobLease);
