// Reading a one-shot's message from stdin without ever hanging (SPEC §1): with a message
// argument, a pipe that gives neither data nor EOF within the grace period is ignored.
export async function readStdin(stream: NodeJS.ReadStream, graceMs: number | null): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let gotData = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (text: string): void => {
      clearTimeout(timer);
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.pause();
      // An abandoned pipe must not keep the process alive.
      if (typeof stream.unref === 'function') stream.unref();
      resolve(text);
    };
    const onData = (c: Buffer): void => {
      gotData = true;
      clearTimeout(timer);
      chunks.push(c);
    };
    const onEnd = (): void => finish(Buffer.concat(chunks).toString('utf8'));
    const onError = (err: Error): void => {
      clearTimeout(timer);
      reject(err);
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    if (graceMs !== null) {
      timer = setTimeout(() => {
        if (!gotData) finish('');
      }, graceMs);
    }
  });
}
