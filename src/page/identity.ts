// Whether a node an act aims at is still the one observed.

/** The node is still connected to the observed document (also run by the focusing call). */
export function isSameConnectedNode(this: Node, document: Document): boolean {
  return this.isConnected && this.ownerDocument === document;
}
