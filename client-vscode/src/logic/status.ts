// The status bar's text from the server's doublet/status notification.

export interface ServerStatus {
  state: string;
  documents: number;
  lastError?: string | null;
  progress?: { done: number; total: number } | null;
  skipped?: { path: string; reason: string }[];
  skippedCount?: number;
  warnings?: string[];
}

export function statusText(status: ServerStatus | undefined): string {
  if (!status) {
    return '$(sync~spin) Doublet: starting';
  }
  if (status.state === 'indexing') {
    const progress = status.progress;
    return progress && progress.total ? `$(sync~spin) Doublet: indexing ${progress.done}/${progress.total}` : '$(sync~spin) Doublet: indexing';
  }
  if (status.state === 'error') {
    return '$(error) Doublet: error';
  }
  if (status.state === 'no workspace') {
    return '$(circle-slash) Doublet: no folder';
  }
  const icon = status.warnings?.length ? '$(warning)' : '$(check)';
  return `${icon} Doublet: ${status.documents} document${status.documents === 1 ? '' : 's'}`;
}

export function statusTooltip(status: ServerStatus | undefined): string {
  if (!status) {
    return 'The Doublet server is starting.';
  }
  const lines = [`Doublet: ${status.state}, ${status.documents} documents indexed. Click for the workspace report.`];
  if (status.lastError) {
    lines.push(`Last error: ${status.lastError}`);
  }
  for (const warning of status.warnings ?? []) {
    lines.push(`Warning: ${warning}`);
  }
  const skipped = status.skipped ?? [];
  if (status.skippedCount) {
    lines.push(`${status.skippedCount} file${status.skippedCount === 1 ? '' : 's'} skipped:`);
    for (const item of skipped.slice(0, 5)) {
      lines.push(`  ${item.path}: ${item.reason}`);
    }
    if (status.skippedCount > 5) {
      lines.push(`  … (all in the Doublet output channel's log)`);
    }
  }
  return lines.join('\n');
}

/** What Find Similar Passages says while it waits for the server's answer. */
export function waitingMessage(status: ServerStatus | undefined): string {
  if (!status || status.state === 'starting') {
    return 'waiting for the server to start…';
  }
  if (status.state === 'indexing') {
    const progress = status.progress;
    const done = progress && progress.total ? ` (${progress.done} of ${progress.total} files)` : '';
    return `waiting for the index to be built${done}…`;
  }
  return 'finding similar passages…';
}
