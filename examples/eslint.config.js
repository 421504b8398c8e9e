// The example service linted with the plugin's recommended preset, as a user would set it up.
import tseslint from 'typescript-eslint';
import safeRetry from '../dist/index.js';

export default [
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser },
  },
  safeRetry.configs.recommended,
  // Spring Boot's application*.yml (examples/spring-service): last, so no JavaScript parser overrides it.
  safeRetry.configs.resilience4j,
];
