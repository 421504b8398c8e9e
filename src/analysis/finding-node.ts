/**
 * Where a finding about one setting of a site is shown. A value written for one retry is shown
 * where it is written (`retries: 9`). A value that reaches several retries (an options constant
 * shared by every call of a module, an exported policy) is shown at each retry that uses it: one
 * finding per retry, where the developer reads that retry, instead of a pile of identical
 * findings on the constant.
 */
import type { Node, RetrySite } from './model.js';

export type FindingNode = (site: RetrySite, setting: Node | undefined) => Node;

function settingNodes(site: RetrySite): (Node | undefined)[] {
  return [site.attempts.node, site.delay.node, site.jitter.node, site.deadlineMs.node, site.attemptTimeoutMs.node];
}

export function findingNodes(sites: () => readonly RetrySite[]): FindingNode {
  let shared: Set<Node> | undefined;
  const sharedNodes = (): Set<Node> => {
    const seen = new Map<Node, RetrySite>();
    const out = new Set<Node>();
    for (const site of sites()) {
      for (const node of settingNodes(site)) {
        if (!node) continue;
        const first = seen.get(node);
        if (!first) seen.set(node, site);
        else if (first !== site) out.add(node);
      }
    }
    return out;
  };
  return (site, setting) => {
    if (!setting) return site.reportNode;
    if (setting.range[0] >= site.node.range[0] && setting.range[1] <= site.node.range[1]) return setting;
    return (shared ??= sharedNodes()).has(setting) ? site.reportNode : setting;
  };
}
