/** Types of `node-check.js` (plain JavaScript, so that any Node can parse it). */
export declare const REQUIRED_NODE: string;
export declare function isSupportedNode(version: string): boolean;
export declare function nodeTooOldLine(bin: string): string;
export declare function userNotice(message: string, event: string): string;
export declare function requireSupportedNode(bin: string, status?: number, hookKind?: string): void;
export declare function entryUrl(entry: string, preferBuilt?: boolean): string;
export declare function runsFromSources(entry: string): boolean;
