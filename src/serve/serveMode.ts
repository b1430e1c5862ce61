/** How serve offers tools: `<server>__<tool>` names (direct) or three meta tools per server (meta). */
export type ServeMode = "direct" | "meta";
