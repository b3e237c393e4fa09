/**
 * Reading a local file for capture. The path is resolved with its symlinks
 * (realpath) and must land inside one of the allowed roots, so a link in the
 * project cannot smuggle `~/.ssh` or `/etc` into a vault; only regular files
 * are read, with the permissions the user already has, and never more than
 * the size cap.
 */
import { constants } from "node:fs";
import { open, realpath, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { diagnostic, WikiError } from "../diagnostics.ts";
import { isInside } from "../vault/fs-safe.ts";

/** A file read for capture. */
export interface ReadFile {
  /** The absolute path as given (resolved against the working directory). */
  path: string;
  /** The file's real location, symlinks resolved. */
  realPath: string;
  bytes: Uint8Array;
}

function fail(code: string, message: string, path: string): WikiError {
  return new WikiError(diagnostic(code, "error", message, { path }));
}

async function canonical(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return resolve(path);
  }
}

function accessFailure(error: unknown, path: string): WikiError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT" || code === "ENOTDIR")
    return fail("capture_not_found", `no such file: ${path}`, path);
  if (code === "EACCES" || code === "EPERM")
    return fail("capture_unreadable", `permission denied reading ${path}`, path);
  if (code === "ELOOP") return fail("capture_unreadable", `too many symlinks in ${path}`, path);
  return fail("capture_unreadable", `cannot read ${path} (${code ?? "unknown error"})`, path);
}

/**
 * Reads `file` (relative to `cwd`) if its real location lies inside one of
 * `roots` and it is a regular file of at most `maxBytes` bytes.
 */
export async function readFileForCapture(
  file: string,
  cwd: string,
  roots: string[],
  maxBytes: number,
): Promise<ReadFile> {
  const path = resolve(cwd, file);
  let realPath: string;
  try {
    realPath = await realpath(path);
  } catch (error) {
    throw accessFailure(error, path);
  }
  const allowed = [...new Set(await Promise.all(roots.map(canonical)))];
  if (!allowed.some((root) => isInside(root, realPath))) {
    const via = realPath === path ? "" : ` (a link to ${realPath})`;
    // The rule and the ways around it: a capture is asked for by an agent, so what it may read is bounded.
    throw new WikiError(
      diagnostic(
        "capture_path_outside",
        "error",
        `${path}${via} is outside the folders a capture may read (${allowed.join(", ")}): a capture reads files only inside the project, its vault, the working folder and your home folder, so that a path or a link handed to it cannot copy files from elsewhere on the machine into the vault`,
        {
          path,
          repair:
            "copy the file into the project and capture the copy, or pass its text on standard input (llm-wiki capture --text - < FILE; in Pi or MCP, give its text as `text`)",
        },
      ),
    );
  }
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(realPath);
  } catch (error) {
    throw accessFailure(error, path);
  }
  if (!info.isFile()) throw fail("capture_not_a_file", `${path} is not a regular file`, path);
  const tooLarge = () =>
    fail(
      "capture_too_large",
      `${path} is larger than the capture limit of ${maxBytes} bytes; nothing was stored`,
      path,
    );
  if (info.size > maxBytes) throw tooLarge();
  // O_NONBLOCK: should the file be swapped for a FIFO after the check, the
  // open does not hang; the fstat below then refuses it.
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(realPath, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw accessFailure(error, path);
  }
  try {
    const now = await handle.stat();
    if (!now.isFile()) throw fail("capture_not_a_file", `${path} is not a regular file`, path);
    // Room for one byte past the cap: a file that grew since the stat is still refused.
    const buffer = Buffer.allocUnsafe(maxBytes + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length === buffer.length) break;
    }
    if (length > maxBytes) throw tooLarge();
    return { path, realPath, bytes: buffer.subarray(0, length) };
  } finally {
    await handle.close();
  }
}
