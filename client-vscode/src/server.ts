// Starting, stopping and restarting the language server.

import * as path from 'path';
import * as vscode from 'vscode';
// Types only: the module itself is loaded while the Python probe runs (see doStart).
import type { LanguageClient, LanguageClientOptions, ServerOptions } from 'vscode-languageclient/node';
import { ChildProcess } from 'child_process';
import { LaunchReport, serverEnvironment } from './logic/bundle';
import { firstFit, whyNotBundled } from './logic/firstFit';
import { candidates } from './logic/python';
import { Registrations } from './logic/registrations';
import { ServerStatus } from './logic/status';
import { FoundPython, PythonNotFound, findPython, launchBundled, privateEnvironment, pythonExtensionInterpreter } from './python';

export class ServerManager implements vscode.Disposable {
  client: LanguageClient | undefined;
  private starting: Promise<void> | undefined;
  /** The listeners the current start put on its client; disposed when it stops. */
  private readonly registered = new Registrations();
  /** The server process started from the bundled libraries, if that is how it runs. */
  private serverProcess: ChildProcess | undefined;

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
    // Python is started first (serverOptions spawns it before its first await when it
    // can); the language client's modules, which take a moment to load, load meanwhile.
    const options = this.serverOptions();
    const languageClient = import('vscode-languageclient/node');
    let serverOptions: ServerOptions;
    try {
      serverOptions = await options;
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

  /**
   * How to run the server. With "doublet.python.path" set, that Python: as it is when
   * it has this version of Doublet (a developer's environment), else with the bundled
   * libraries, else from a private environment made with pip. Without it, the bundled
   * libraries with the first Python they fit, started at once (launch.py checks that
   * they fit while it starts); a Python with Doublet installed or the private
   * environment only when they fit none.
   */
  private async serverOptions(): Promise<ServerOptions> {
    const version: string = this.context.extension.packageJSON.version;
    const setting = vscode.workspace.getConfiguration('doublet').get<string>('python.path')?.trim();
    const plain = (python: string): ServerOptions => ({
      command: python,
      args: ['-m', 'doublet', 'serve'],
      options: { env: serverEnvironment(process.env) },
    });
    let found: FoundPython | undefined;
    // Without the Python extension, nothing is awaited before Python is started.
    const interpreter = vscode.extensions.getExtension('ms-python.python') ? await pythonExtensionInterpreter() : undefined;
    let commands = candidates(undefined, interpreter, process.platform === 'win32');
    if (setting) {
      found = await findPython(this.output);
      if (found.info.doublet === version) {
        this.output.appendLine(`Server: Doublet ${version} installed for ${found.command}`);
        return plain(found.command);
      }
      commands = [found.command];
    }
    const bundled = await firstFit(commands, (command) => launchBundled(this.context.extensionPath, command, this.output));
    if ('started' in bundled) {
      return this.bundledServer(bundled.command, bundled.started.process, bundled.started.report);
    }
    found ??= await findPython(this.output);
    const reason = whyNotBundled(bundled.refused, found.command);
    if (found.info.doublet === version) {
      this.output.appendLine(`Server: Doublet ${version} installed for ${found.command} (no bundled server libraries for it: ${reason})`);
      return plain(found.command);
    }
    return plain(await privateEnvironment(this.context, found, reason, this.output));
  }

  /** The server launch.py started; the language client talks to it over its stdio. */
  private bundledServer(command: string, first: ChildProcess, report: LaunchReport & { ok: true }): ServerOptions {
    const version: string = this.context.extension.packageJSON.version;
    this.output.appendLine(`Python: ${command} (${report.python})`);
    this.output.appendLine(
      `Server: Doublet ${version} run by ${report.executable} with the libraries bundled in the extension (${report.folders.join(path.delimiter)})`,
    );
    let next: ChildProcess | undefined = first;
    return async () => {
      // A restart after a crash starts it again (the language client asks for it).
      let child = next;
      next = undefined;
      if (!child) {
        const launch = await launchBundled(this.context.extensionPath, command, this.output);
        if (launch.kind !== 'started') {
          throw new Error(launch.reason);
        }
        child = launch.process;
      }
      this.serverProcess = child;
      return { reader: child.stdout!, writer: child.stdin! };
    };
  }

  async stop(): Promise<void> {
    // A start under way finishes first: a client stopped while it starts refuses to stop,
    // and would run on, unknown to the next start.
    await this.starting?.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    try {
      if (client) {
        await client.stop();
      }
    } catch (error) {
      // A server that does not answer the shutdown in time, or a client that never got
      // to run: said, and not in the way of a restart (its process is ended below).
      this.output.appendLine(`Stopping the server: ${(error as Error).message}`);
    } finally {
      // Given as streams, the bundled server is not the client's to end: after the
      // shutdown and exit it was sent, it is ended here if it is still running.
      const server = this.serverProcess;
      this.serverProcess = undefined;
      if (server && server.exitCode === null && server.signalCode === null) {
        server.kill();
      }
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
