/** eslint-doc-generator settings: headers of rules-docs/*.md and the rules table in README.md. */
export default {
  pathRuleDoc: './rules-docs/{name}.md',
  pathRuleList: './README.md',
  ruleDocTitleFormat: 'name',
  ignoreConfig: ['all', 'resilience4j', 'recommended-type-checked'],
  configEmoji: [
    ['recommended', '✅'],
    ['strict', '🔒'],
  ],
  ruleDocSectionInclude: ['Examples', 'When Not To Use It'],
  ruleListColumns: ['name', 'description', 'configsError', 'fixable', 'hasSuggestions', 'requiresTypeChecking'],
  urlRuleDoc: 'rules-docs/{name}.md',
};
