import type { Server } from 'node:http';

/** Starts `server` listening, and settles once it listens or fails to (a port in use, say). */
export function listen(server: Server, port: number, host?: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
