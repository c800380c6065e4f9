// The server's Table cells use apimachinery's HumanDuration, which lives with the API types (src/api/humanize.ts)
// because clients print ages too.
export { age, humanDuration } from '../api/humanize.js';
