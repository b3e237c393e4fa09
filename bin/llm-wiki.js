#!/usr/bin/env node
// `llm-wiki`: checks the Node version, then runs the command-line host.
import { entryUrl, requireSupportedNode } from "./node-check.js";

requireSupportedNode("llm-wiki");
await import(entryUrl("cli/llm-wiki"));
