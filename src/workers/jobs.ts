/**
 * Background job bookkeeping for the worker API: what GET /workers/{id} reports as `job_status`,
 * and the `Failed job: …` WARN line. Success drops the entry; failures linger ~5 minutes.
 */
import type { Logger } from '../util/logger.js';
import type { JobType } from './types.js';

export interface JobStatus {
  job_type: JobType;
  worker_url: string;
  status: 'pending' | 'processing' | 'failed';
  message: string | null;
  timestamp: number;
}

const FAILED_TTL_MS = 5 * 60 * 1000;

export class JobTracker {
  private readonly jobs = new Map<string, JobStatus>();

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  queued(workerId: string, type: JobType, url: string): void {
    this.jobs.set(workerId, { job_type: type, worker_url: url, status: 'pending', message: null, timestamp: this.secs() });
  }

  processing(workerId: string): void {
    const j = this.jobs.get(workerId);
    if (j) this.jobs.set(workerId, { ...j, status: 'processing', timestamp: this.secs() });
  }

  succeeded(workerId: string): void {
    this.jobs.delete(workerId);
  }

  failed(workerId: string, type: JobType, url: string, error: string): void {
    this.logger.warn(`Failed job: type=${type}, worker=${url}, error=${error}`);
    this.jobs.set(workerId, { job_type: type, worker_url: url, status: 'failed', message: error, timestamp: this.secs() });
  }

  get(workerId: string): JobStatus | null {
    const j = this.jobs.get(workerId);
    if (!j) return null;
    if (j.status === 'failed' && this.now() - j.timestamp * 1000 > FAILED_TTL_MS) {
      this.jobs.delete(workerId);
      return null;
    }
    return j;
  }

  private secs(): number {
    return Math.floor(this.now() / 1000);
  }
}

/** The workflow-engine wording SMG logs for a step failure. */
export function workflowError(workflowStep: string, step: string, message: string): string {
  return `Workflow failed at step ${workflowStep}: Step failed: ${step} - ${message}`;
}
