// Starting, stopping and restarting the language server.

import * as path from 'path';
import * as vscode from 'vscode';
// Types only: the module itself is loaded while the Python probe runs (see doStart).
import type { LanguageClient, LanguageClientOptions, ServerOptions } from 'vscode-languageclient/node';
import { serverArgs, serverEnvironment } from './logic/bundle';
import { Registrations } from './logic/registrations';
import { ServerStatus } from './logic/status';
import { PythonNotFound, ServerPython, findPython, serverPython } from './python';

export class ServerManager implements vscode.Disposable {
  client: LanguageClient | undefined;
  private starting: Promise<void> | undefined;
  /** The listeners the current start put on its client; disposed when it stops. */
  private readonly registered = new Registrations();

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly output: vscode.OutputChannel,
    private readonly onStatus: (status: ServerStatus | undefined) => void,
  ) {}

  async start(): Promise<void> {
    if (!this.starting) {
      this.starting = this.doStart().finally(() => {
        this.starting = undefined;
      });
    }
    return this.starting;
  }

  private async doStart(): Promise<void> {
    this.onStatus(undefined);
    let server: ServerPython;
    // The language client's modules take a moment to load: that happens while the probe of
    // Python (a process of its own) runs, rather than before it.
    const found = findPython(this.output);
    const languageClient = import('vscode-languageclient/node');
    try {
      server = await serverPython(this.context, await found, this.output);
    } catch (error) {
      const message = error instanceof PythonNotFound ? error.message : `Doublet could not start: ${(error as Error).message}`;
      this.onStatus({ state: 'error', documents: 0, lastError: message });
      void vscode.window.showErrorMessage(message, 'Open Settings').then((choice) => {
        if (choice) {
          void vscode.commands.executeCommand('workbench.action.openSettings', 'doublet.python.path');
        }
      });
      return;
    }
    const serverOptions: ServerOptions = {
      command: server.python,
      args: serverArgs(server.pythonPath),
      options: { env: serverEnvironment(process.env, server.pythonPath, path.delimiter) },
    };
    const settings = vscode.workspace.getConfiguration('doublet');
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }],
      outputChannel: this.output,
      synchronize: { configurationSection: 'doublet' },
      initializationOptions: { clientCompare: true, settings: JSON.parse(JSON.stringify(settings)) },
    };
    const { LanguageClient, State } = await languageClient;
    this.client = new LanguageClient('doublet', 'Doublet', serverOptions, clientOptions);
    this.registered.add(
      this.client.onDidChangeState((event) => {
        if (event.newState === State.Stopped) {
          this.onStatus({ state: 'stopped', documents: 0 });
        }
      }),
    );
    await this.client.start();
    this.registered.add(this.client.onNotification('doublet/status', (status: ServerStatus) => this.onStatus(status)));
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    try {
      if (client) {
        await client.stop();
      }
    } finally {
      this.registered.disposeAll(); // after the stop, so that its state change still shows
    }
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  dispose(): void {
    void this.stop();
  }
}
