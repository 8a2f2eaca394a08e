/**
 * Names the calling thread for the operating system, where it lets a thread do so (Linux: its `comm`, what
 * `top -H`, `ps -L` and `/proc/PID/task/TID/comm` show): the relay's and the audit's threads then tell an
 * operator which one spends the CPU (docs/BENCHMARKS.md reads them so). Names are cut to Linux's 15 bytes.
 * Elsewhere, or where the file cannot be written, nothing happens: a name is a help, never a requirement.
 */
import { readFileSync, writeFileSync } from 'node:fs';

export function nameThisThread(name: string): void {
  if (process.platform !== 'linux') return;
  try {
    writeFileSync('/proc/thread-self/comm', name.slice(0, 15));
  } catch {
    // No /proc, or a kernel without thread-self (before 3.17): the thread keeps the name it had.
  }
}

/** The calling thread's name as the operating system has it, or null where it cannot be read. */
export function threadName(): string | null {
  if (process.platform !== 'linux') return null;
  try {
    return readFileSync('/proc/thread-self/comm', 'utf8').trim();
  } catch {
    return null;
  }
}
