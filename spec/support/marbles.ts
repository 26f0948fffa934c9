// What the marble tests share: a TestScheduler that compares with jest, and factories for cold tasks.
import type { Observable } from 'rxjs';
import { TestScheduler, type RunHelpers } from 'rxjs/testing';
import type { TaskFactory } from '../../src/index';

export type ColdObservable<T> = ReturnType<RunHelpers['cold']> & Observable<T>;

export function createScheduler() {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

/** One factory per cold task, keyed like the tasks, so that marbles can name them. */
export function factoriesFor<T>(tasks: Record<string, ColdObservable<T>>): Record<string, TaskFactory<T>> {
  return Object.fromEntries(Object.entries(tasks).map(([key, task]) => [key, () => task]));
}
