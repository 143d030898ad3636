// A deep copy through JSON: for data going into a state file, the copy is also the proof that it
// survives being written (no functions, no undefined inside arrays, no shared objects).

export function cloneJson<T>(value: T): T {
  // JSON.parse returns any; a JSON round trip of a T is a T (the state holds JSON data only).
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}
