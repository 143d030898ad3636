const question = "?";
const answer = 40;
