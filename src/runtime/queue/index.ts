export { createTaskQueue } from './queue.js';
export type {
  EnqueueItem,
  EnqueueOptions,
  FailedTask,
  HandoffOptions,
  PayloadOf,
  TaskContext,
  TaskHandler,
  TaskHandlers,
  TaskQueue,
  TaskQueueOptions,
} from './options.js';
export { NonRetryableTaskError, TaskQueueError } from './errors.js';
export type { TaskQueueErrorCode } from './errors.js';
export { postgresStore, postgresSchemaSql } from './postgres.js';
export type { PgPoolClientLike, PgPoolLike, PgQueryable, PgQueryResultLike, PostgresStoreOptions } from './postgres.js';
export { sqliteStore, sqliteSchemaSql } from './sqlite.js';
export type { SqliteDatabaseLike, SqliteStatementLike, SqliteStoreOptions, SqliteTransactionLike } from './sqlite.js';
export type { ClaimedTask, EnqueueOutcome, NewTaskRow, StoreNow, Task, TaskCounts, TaskStatus, TaskStore } from './types.js';
