export const dags = [];
